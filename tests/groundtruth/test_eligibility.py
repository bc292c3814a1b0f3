"""groundtruth.neural.min_interactions: no neural target, gold or negative below the minimum of
training interactions (each user's last row held out, as NeuMF trains)."""

import pandas as pd

from lrworld.groundtruth.eligibility import eligible, training_counts
from lrworld.groundtruth.prototypes import prototype_candidates


def test_training_counts_leave_each_users_last_row_out():
    inter = pd.DataFrame({"user_id": ["1", "1", "1", "2", "3", "3"], "item_id": ["a", "b", "c", "a", "a", "c"],
                          "timestamp": [1, 2, 3, 1, 1, 2]})
    counts = training_counts(inter)
    # user 1's c and user 3's c are held out; user 2 has one row, which it keeps
    assert counts["user"] == {"1": 2, "2": 1, "3": 1}
    assert counts["item"] == {"a": 3, "b": 1}
    assert eligible(["a", "b", "c"], counts["item"], 2).tolist() == [True, False, False]


def test_no_neural_entity_below_the_minimum_on_ml100k(ml100k, ml100k_neumf):
    inter = ml100k[0]
    counts = training_counts(inter)
    for measure, (tkind, ckind) in {"neu_user2items": ("user", "item"), "neu_item2users": ("item", "user")}.items():
        table, stats = prototype_candidates(ml100k_neumf[1], inter, measure, 30, k=10, dataset="ml-100k",
                                            min_interactions=5)
        kept = table[table["status"] == "kept"]
        assert len(kept) and all(counts[ckind].get(c, 0) >= 5 for c in kept["candidate"])
        assert all(counts[tkind].get(t, 0) >= 5 for t in table["target"])
        assert stats["candidates_few_interactions"] == sum(
            n < 5 for n in pd.Series(counts[ckind]).reindex(inter[f"{ckind}_id"].astype(str).unique(),
                                                            fill_value=0))
        assert (table["min_interactions"] == 5).all()
    # with no minimum, barely-seen items are shown again (the filter is what keeps them out)
    loose, stats = prototype_candidates(ml100k_neumf[1], inter, "neu_user2items", 30, k=10, dataset="ml-100k",
                                        min_interactions=1)
    shown = loose[loose["status"] == "kept"]["candidate"]
    assert min(counts["item"].get(c, 0) for c in shown) < 5
    # ... but never one whose only interaction was held out (no training row: an untouched embedding)
    never = sum(counts["item"].get(i, 0) == 0 for i in inter["item_id"].astype(str).unique())
    assert stats["candidates_few_interactions"] == never == 3
