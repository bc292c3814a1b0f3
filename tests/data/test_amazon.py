"""Amazon Review 2018 (5-core reviews + metadata JSON lines) on generated fixtures in that format."""


import pytest

from lrworld.data.amazon import category_path, clean_brand, clean_text
from lrworld.data.contract import DataError
from lrworld.data.ingest import ingest, required_files
from lrworld.questions.build import build_questions
from tests.support.fixtures_amazon import write_amazon_2018

CFG = {"format": "amazon-2018", "prefix": "Home_and_Kitchen"}


def test_round_trip_with_the_real_files_quirks(tmp_path):
    fx = write_amazon_2018(tmp_path, n_users=30, n_items=50, seed=1)
    inter, items, users, report = ingest("amz", CFG, tmp_path, {})
    assert len(inter) == fx["n_reviews"] and users["user_id"].nunique() == 30
    rep = report["amazon-2018"]
    assert rep["metadata_duplicate_asins"] == 1 and rep["interactions_without_metadata"] == 0
    row = items.set_index("item_id")
    for asin, t in fx["truth"].items():
        r = row.loc[asin]
        assert r["brand"] == t["brand"] if t["brand"] else r["brand"] is None or r["brand"] != r["brand"]
        assert r["color"] == t["color"]  # from details, or else the reviews' chosen style
        assert (r["category_root"], r["category_interm"], r["category_leaf"]) == (t["path"][0], t["path"][1], t["path"][-1])
        assert "<" not in r["title"] and "&amp;" not in r["title"]
    assert required_files("amazon-2018", CFG) == ["Home_and_Kitchen_5.json", "meta_Home_and_Kitchen.json"]


def test_quirk_cleaning():
    assert clean_text('<span class="x">Pots &amp; Pans</span>') == "Pots & Pans"
    assert clean_brand("Unknown") is None and clean_brand(" ") is None and clean_brand("Visit the OXO Store") == "OXO"
    assert category_path(["Home & Kitchen", "Home & Kitchen", "", "Bath</span></span>", "Towels"]) == \
        ["Home & Kitchen", "Bath", "Towels"]


def test_malformed_line_is_named_or_counted(tmp_path):
    write_amazon_2018(tmp_path, n_users=10, n_items=20, seed=2, malformed_line=7)
    with pytest.raises(DataError, match=r"Home_and_Kitchen_5\.json: line 7: not valid JSON"):
        ingest("amz", CFG, tmp_path, {})
    inter, _, _, report = ingest("amz", dict(CFG, on_bad_line="skip"), tmp_path, {})
    assert report["amazon-2018"]["bad_lines_skipped"] == {"Home_and_Kitchen_5.json": 1}


def test_gzip_and_several_categories(tmp_path):
    write_amazon_2018(tmp_path, prefix="A_cat", n_users=8, n_items=20, seed=3, gz=True)
    write_amazon_2018(tmp_path, prefix="B_cat", n_users=8, n_items=20, seed=4, gz=True)
    cfg = {"format": "amazon-2018", "categories": ["A_cat", "B_cat"], "gzip": True}
    assert required_files("amazon-2018", cfg) == ["A_cat_5.json.gz", "meta_A_cat.json.gz", "B_cat_5.json.gz",
                                                  "meta_B_cat.json.gz"]
    inter, items, users, _ = ingest("amz", cfg, tmp_path, {})
    assert len(users) == 16 and 20 < len(items) <= 40  # items nobody reviewed are not kept


@pytest.mark.parametrize("measure,field", [("kg_brand", "brand"), ("attr_color", "color"),
                                           ("taxo_leaf", "category_leaf"), ("taxo_interm", "category_interm"),
                                           ("taxo_root", "category_root")])
def test_product_questions(tmp_path, measure, field):
    write_amazon_2018(tmp_path, n_users=60, n_items=80, seed=5)
    inter, items, _, _ = ingest("amz", CFG, tmp_path, {})
    qs, report = build_questions("amz", "product", measure, inter, items, 5, None, 1)
    value = {i: v for i, v in zip(items["item_id"], items[field]) if isinstance(v, str)}
    for q in qs:
        assert q["candidates"][q["answer_index"]] == value[q["target_item"]]
        assert len(set(q["candidates"])) == 4 and None not in q["candidates"]
    # products without a brand (empty / "Unknown") are skipped and counted, never answered
    assert len(qs) + sum(report["skipped"].values()) == 60
    if measure == "kg_brand":
        assert report["skipped"]["positive_has_no_value"] > 0


def test_abo_alignment_by_asin(tmp_path):
    import json as _json

    from tests.support.fixtures_amazon import write_abo

    fx = write_amazon_2018(tmp_path / "amz", n_users=20, n_items=30, seed=6)
    # drop the image URLs of the metadata so ABO's local images fill them
    meta = fx["metadata"]
    recs = [_json.loads(line) for line in meta.read_text().splitlines()]
    for r in recs:
        r["imageURL"], r["imageURLHighRes"] = [], []
    meta.write_text("\n".join(_json.dumps(r) for r in recs) + "\n")
    asins = sorted(fx["truth"])[:10]
    abo_fx = write_abo(tmp_path / "abo", fx["truth"], asins)
    _, items, _, report = ingest("amz", CFG, tmp_path / "amz",
                                 {"abo_listings": abo_fx["listings"], "abo_images": abo_fx["images"]})
    rep = report["abo"]
    kept = set(items["item_id"])
    assert rep["matched_asins"] == len(set(asins) & kept) and rep["images_filled"] == rep["matched_asins"]
    row = items.set_index("item_id")
    for a in set(asins) & kept:
        assert row.loc[a, "poster_url"].startswith("file://") and row.loc[a, "abo_image"].endswith(".jpg")
    with pytest.raises(DataError, match="both"):
        ingest("amz", CFG, tmp_path / "amz", {"abo_listings": abo_fx["listings"]})
