"""The positive control finds golds that the data says are right and not golds it says are wrong,
on hand-made interactions: ten groups of users, each group watching its own pair of films."""

import pandas as pd

from lrworld.groundtruth.positive_control import positive_controls

# group k: users g{k}u0..u5 each watched a{k} and b{k} (and one film of the next group, so no
# cosine is undefined); a{k} and b{k} are each other's most similar film, user-user likewise
ROWS = [(f"g{k}u{u}", item, t) for k in range(10) for u in range(6)
        for t, item in enumerate([f"a{k}", f"b{k}", f"a{(k + 1) % 10}" if u == 0 else f"b{k}"])]
INTER = pd.DataFrame(ROWS, columns=["user_id", "item_id", "timestamp"]).drop_duplicates(["user_id", "item_id"])
INTER["rating"] = 4.0
ITEMS = pd.DataFrame({"item_id": sorted(set(INTER["item_id"])), "title": sorted(set(INTER["item_id"])), "year": 2000})


def mem_questions(right: bool) -> list[dict]:
    """One question per group: target a{k}; candidates b{k} and nine a/b films of other groups; the
    gold b{k} (right) or one of the others (wrong)."""
    out = []
    for k in range(10):
        others = [f"b{(k + j) % 10}" for j in range(1, 10)]
        cands = [f"b{k}", *others]
        out.append({"qid": f"d/mem_item_item/a{k}", "context": {"target_item": f"a{k}"}, "candidates": cands,
                    "candidate_kind": "item", "answer_index": 0 if right else 1})
    return out


def test_the_memory_control_finds_a_right_gold_and_not_a_wrong_one():
    good = positive_controls("d", "movie", {"mem_item_item": mem_questions(True) * 3}, INTER, ITEMS, seed=0)
    r = good["mem_item_item"]
    assert r["n"] == 30 and r["score"] == 1.0 and r["answerable"] and r["stability"] >= 0.95
    assert r["method"] == "cosine over a random half of the users"
    bad = positive_controls("d", "movie", {"mem_item_item": mem_questions(False) * 3}, INTER, ITEMS, seed=0)
    assert bad["mem_item_item"]["score"] == 0.0 and not bad["mem_item_item"]["answerable"]
    assert bad["mem_item_item"]["stability"] <= 0.05


def test_the_next_item_control_reads_behaviour_without_the_users_own():
    # the user's history a{k}; the gold b{k}, watched with a{k} by the group's other users
    qs = [{"qid": f"d/text_logline/u{k}", "user_id": f"g{k}u1", "history": [f"a{k}"], "candidate_kind": "item",
           "candidates": [f"b{k}", f"b{(k + 3) % 10}", f"b{(k + 5) % 10}", f"b{(k + 7) % 10}"], "answer_index": 0}
          for k in range(10)] * 3
    r = positive_controls("d", "movie", {"text_logline": qs}, INTER, ITEMS, seed=0)["text_logline"]
    assert r["score"] == 1.0 and r["answerable"] and r["chance"] == 0.25
