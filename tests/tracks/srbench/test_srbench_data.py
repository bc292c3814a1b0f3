import gzip
import json
import math

import pandas as pd
import pytest

from lrworld.data.contract import DataError, finalize_interactions, finalize_items
from lrworld.tracks.srbench import data as D
from tests.support.fixtures_yelp import write_yelp_fixture


def _inter(rows):
    df = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])
    return finalize_interactions(df, "test")


def test_leave_one_out_is_chronological():
    inter = _inter([("u", "c", 5, 3), ("u", "a", 4, 1), ("u", "b", 3, 2), ("u", "d", 1, 4), ("v", "a", 2, 1), ("v", "b", 2, 5)])
    s = D.leave_one_out(inter)
    u = s[s.user_id == "u"].set_index("item_id")["split"].to_dict()
    assert u == {"a": "train", "b": "train", "c": "valid", "d": "test"}
    assert set(s[s.user_id == "v"]["split"]) == {"train"}  # < 3 interactions: not evaluated


def test_split_data_popularity_and_quality_use_history_only():
    inter = _inter([("u", "a", 4, 1), ("u", "b", 2, 2), ("u", "c", 5, 3), ("w", "a", 2, 1), ("w", "c", 1, 2), ("w", "b", 3, 3)])
    items = finalize_items(pd.DataFrame({"item_id": ["a", "b", "c"], "title": ["A", "B", "C"]}))
    sd = D.make_split(inter, items)
    assert sd.eval_users == ["u", "w"] and sd.targets == [{"c"}, {"b"}]
    assert sd.popularity() == {"a": 2.0, "b": 1.0, "c": 1.0}
    assert sd.quality() == {"a": 3.0, "b": 2.0, "c": 1.0}
    assert sd.index_to_item() == {1: "a", 2: "b", 3: "c"}  # non-numeric ids are numbered
    assert sd.histories() == {"u": ["a", "b"], "w": ["a", "c"]}


def test_ml100k_contract_and_split(ml100k, ml100k_split):
    inter, items = ml100k
    assert len(inter) == 100_000 and len(items) == 1682
    assert inter["rating"].dtype == "float64" and inter["timestamp"].dtype == "int64"
    assert items.set_index("item_id").at["1", "title"] == "Toy Story (1995)"
    assert "Animation" in items.set_index("item_id").at["1", "genres"]
    sd = ml100k_split
    assert len(sd.eval_users) == 943
    assert sd.interactions["split"].value_counts().to_dict() == {"train": 98114, "valid": 943, "test": 943}
    assert sd.index_to_item()[242] == "242"  # numeric ids keep their value


def test_beauty_sequences(shared_data):
    inter, items = D.load_beauty_sequences(shared_data / "amazon-beauty-5core-gram" / "user_sequence.txt")
    assert len(inter) == 198_502 and inter["user_id"].nunique() == 22_363 and len(items) == 12_101
    first = inter[inter.user_id == "A1YJEY40YUW4SE"]["item_id"].tolist()
    assert first == ["B004756YJA", "B004ZT0SSG", "B0020YLEYK", "7806397051", "B002WLWX82"]
    assert inter["rating"].isna().all()


def test_amazon_2014_and_2018_files(tmp_path):
    seq = tmp_path / "user_sequence.txt"
    seq.write_text("U1 B01 B02 B03\n")
    r14 = tmp_path / "reviews_Beauty_5.json"
    r14.write_text("\n".join(json.dumps({"reviewerID": "U1", "asin": a, "reviewerName": "x", "helpful": [0, 0],
                                          "reviewText": "t", "overall": o, "summary": "s", "unixReviewTime": t,
                                          "reviewTime": "01 30, 2014"}) for a, o, t in [("B01", 5.0, 10), ("B02", 3.0, 20)]))
    m14 = tmp_path / "meta_Beauty.json.gz"
    with gzip.open(m14, "wt") as fh:  # 2014 metadata: python literals, not JSON
        fh.write(str({"asin": "B01", "title": "Lip Balm", "categories": [["Beauty", "Skin Care", "Lips"]], "price": 3.5}) + "\n")
        fh.write(str({"asin": "B02", "categories": [["Beauty"]]}) + "\n")
    m18 = tmp_path / "meta_All_Beauty.json"
    m18.write_text(json.dumps({"asin": "B03", "title": "Shampoo", "category": ["Beauty", "Hair Care"], "brand": "X"}) + "\n")
    inter, items = D.load_beauty_sequences(seq)
    reviews = D.load_amazon_reviews(r14)
    meta = pd.concat([D.load_amazon_meta(m14), D.load_amazon_meta(m18)])
    inter, items = D.attach_amazon(inter, items, reviews, meta)
    assert inter["item_id"].tolist() == ["B01", "B02", "B03"]  # sequence order kept
    assert inter["rating"].tolist()[:2] == [5.0, 3.0] and math.isnan(inter["rating"].iloc[2])
    it = items.set_index("item_id")
    assert it.at["B01", "title"] == "Lip Balm" and it.at["B01", "genres"] == ["Beauty", "Skin Care", "Lips"]
    assert it.at["B02", "title"] == "B02" and it.at["B03", "genres"] == ["Beauty", "Hair Care"]


def test_yelp_fixture_roundtrip(tmp_path):
    rp, bp = write_yelp_fixture(tmp_path, n_users=30, n_businesses=25, reviews_per_user=8, seed=1)
    first = json.loads(rp.read_text().splitlines()[0])
    assert set(first) == {"review_id", "user_id", "business_id", "stars", "useful", "funny", "cool", "text", "date"}
    biz = json.loads(bp.read_text().splitlines()[0])
    assert {"business_id", "name", "categories", "attributes", "hours", "stars", "review_count", "is_open"} <= set(biz)
    inter, items = D.load_yelp(rp, bp, kcore=0)
    assert len(inter) == 30 * 8 and inter["user_id"].nunique() == 30
    assert (inter.groupby("user_id")["timestamp"].apply(lambda s: s.is_monotonic_increasing)).all()
    assert set(inter["item_id"]) <= set(items["item_id"])
    cats = items.set_index("title").at["Business 1", "genres"]
    assert len(cats) == 2
    inter5, _ = D.load_yelp(rp, bp, kcore=5)
    assert inter5.groupby("item_id").size().min() >= 5 and inter5.groupby("user_id").size().min() >= 5
    sd = D.make_split(inter5, items[items.item_id.isin(inter5.item_id)])
    assert set(sd.index_to_item()) == set(range(1, inter5["item_id"].nunique() + 1))


def test_missing_business_is_reported(tmp_path):
    rp, bp = write_yelp_fixture(tmp_path, n_users=5, n_businesses=5, reviews_per_user=3)
    bp.write_text(bp.read_text().splitlines()[0] + "\n")
    with pytest.raises(DataError, match="missing"):
        D.load_yelp(rp, bp, kcore=0)
