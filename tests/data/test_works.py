"""One id per work: ML-100K's 18 films listed under two ids are merged at ingest."""

import pandas as pd

from lrworld.data.ingest import ingest
from lrworld.data.works import merge_same_work, work_groups
from lrworld.prompts.render import item_keys


def test_real_ml100k_duplicates_are_merged_to_one_id(shared_data):
    inter, items, _, report = ingest("ml", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    merged = report["same_work_merged"]
    assert (merged["groups"], merged["items_merged"], merged["interactions_repointed"],
            merged["interactions_dropped_same_user"]) == (18, 18, 608, 307)
    assert "Fly Away Home (1996): 304 + 500 -> 304" in merged["examples"]
    by_id = items.set_index("item_id")
    assert list(by_id.loc["304", "original_ids"]) == ["304", "500"] and "500" not in by_id.index
    assert list(by_id.loc["1", "original_ids"]) == ["1"]
    # "Deceiver (1997)" is 1606 and 309: the smaller id, numerically, is kept
    assert list(by_id.loc["309", "original_ids"]) == ["309", "1606"]
    assert not inter["item_id"].isin(["500", "268", "1606"]).any()
    # no two items are one work, and no user meets one film twice
    keys = item_keys(items)
    assert len(set(keys.values())) == len(keys) == 1664
    assert not inter.duplicated(["user_id", "item_id"]).any()
    # switched off: the file's ids as published
    _, items, _, report = ingest("ml", {"format": "ml-100k", "merge_same_work": False},
                                 shared_data / "movielens-100k/raw", {})
    assert len(items) == 1682 and "same_work_merged" not in report


def test_merge_fills_fields_and_keeps_one_users_earliest_event():
    items = pd.DataFrame({"item_id": ["10", "9", "3"], "title": ["The Mask", "the mask!", "Mask"],
                          "year": [1994, 1994, 1994], "plot": [None, "A mask.", "Other."]})
    inter = pd.DataFrame({"user_id": ["u", "u", "v"], "item_id": ["10", "9", "10"], "timestamp": [5, 2, 1]})
    assert work_groups(items) == [["9", "10"]]  # "Mask" is another title
    out, new, rep = merge_same_work(items, inter)
    assert out.set_index("item_id").loc["9", "plot"] == "A mask." and list(out["item_id"]) == ["9", "3"]
    assert sorted(map(tuple, new[["user_id", "item_id", "timestamp"]].values.tolist())) == [("u", "9", 2), ("v", "9", 1)]
    assert (rep["interactions_repointed"], rep["interactions_dropped_same_user"]) == (2, 1)
    # no year, no merge (products and artists are never merged by title alone)
    assert work_groups(items.assign(year=None)) == []
