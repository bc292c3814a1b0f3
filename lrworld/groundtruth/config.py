"""Which measures take their answers from a ground-truth artifact (lrworld/groundtruth/artifacts.py)."""

MEASURE_ARTIFACT = {
    "assoc_rule": "rules",
    "mem_item_item": "item_similar_pairs",
    "mem_user_user": "user_similar_pairs",
    "neu_item2users": "prototypes",
    "neu_user2items": "prototypes",
}
MEASURES = tuple(MEASURE_ARTIFACT)
