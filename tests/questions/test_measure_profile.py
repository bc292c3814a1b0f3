"""The profile a measure's prompt shows (what `noisy` corrupts) follows from how its questions are
built, so a measure added with only its gold gets the right one."""

from lrworld.questions.measures import HIT10, RULE, TABLE, Gold, Measure, by_id


def _measure(gold, **kw):
    return Measure("toy", ("movie",), "association", "toy", HIT10, "pkg.mod:build", gold=gold, **kw)


def test_a_profile_follows_from_the_gold():
    assert _measure(Gold(TABLE, "item", "item", "score")).profile is None  # a target item among items
    assert _measure(Gold(TABLE, "user", "item", "score")).profile == "history"
    assert _measure(Gold(TABLE, "item", "user", "score")).profile == "candidate_histories"
    assert _measure(Gold(RULE)).profile == "antecedents"
    assert _measure(None).profile == "history"  # a knowledge measure: the user's window
    assert _measure(Gold(TABLE, "item", "item", "score"), profile="history").profile == "history"  # declared wins


def test_the_registered_measures_show_what_their_prompts_show():
    assert {m: by_id(m).profile for m in ("assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users",
                                           "neu_user2items", "attr_genre")} == {
        "assoc_rule": "antecedents", "mem_item_item": None, "mem_user_user": "history",
        "neu_item2users": "candidate_histories", "neu_user2items": "history", "attr_genre": "history"}
