"""Amazon Review data (2018 in both metadata releases, 2014) and ABO, on fixtures in the published
formats with the real files' quirks, and the 2014 format over the real Beauty 5-core sequences."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from lrworld.core.schema import ConfigError
from lrworld.data.amazon import category_path, clean_brand, clean_text, color_of, full_image
from lrworld.data.contract import DataError
from lrworld.data.formats import FORMATS
from lrworld.data.ingest import ingest
from lrworld.questions.build import build_questions
from tests.support.fixtures_amazon import write_abo, write_amazon_2014_beauty, write_amazon_2018

CFG = {"format": "amazon-2018", "prefix": "Home_and_Kitchen"}


def text(v):
    return v if isinstance(v, str) else None


@pytest.mark.parametrize("release", ["metaFiles2", "metaFiles"])
def test_both_2018_releases_with_the_real_files_quirks(tmp_path, release):
    fx = write_amazon_2018(tmp_path, n_users=30, n_items=48, seed=1, release=release)
    inter, items, users, report = ingest("amz", CFG, tmp_path, {})
    assert len(inter) == fx["n_reviews"] and users["user_id"].nunique() == 30
    rep = report["amazon-2018"]
    assert rep["metadata_duplicate_asins"] == 1 and rep["interactions_without_metadata"] == 0
    # every product has an image in either release: the older one's thumbnails lose their ._SS40_
    assert rep["items_with_image"] == len(items)
    assert rep["metadata_image_field"] == ({"imageURLHighRes": 48} if release == "metaFiles2" else {"image": 48})
    row = items.set_index("item_id")
    for asin, t in fx["truth"].items():
        if asin not in row.index:
            continue
        r = row.loc[asin]
        assert r["poster_url"] == t["image"]
        assert text(r["brand"]) == t["brand"]
        assert r["color"] == t["color"]  # from details, or else the reviews' chosen style
        path = t["path"]
        assert text(r["category_root"]) == (path[0] if path else None)
        assert text(r["category_interm"]) == (path[1] if len(path) > 2 else None)
        assert text(r["category_leaf"]) == (path[-1] if len(path) >= 2 else None)
        assert "<" not in r["title"] and "&amp;" not in r["title"]


def test_taxonomy_coverage_per_level_is_reported(tmp_path):
    fx = write_amazon_2018(tmp_path, n_users=40, n_items=48, seed=2, min_reviews=12)
    _, items, _, report = ingest("amz", CFG, tmp_path, {})
    assert len(items) == 48  # 12+ reviews each of 48 items: every product is reviewed
    # by hand: k % 8 == 6 -> no category (6 items), k % 8 == 7 -> two levels, no intermediate (6)
    cov = report["amazon-2018"]["taxonomy_coverage"]
    assert cov == {"items": 48, "root": round(42 / 48, 4), "intermediate": round(36 / 48, 4),
                   "leaf": round(42 / 48, 4), "path_depths": cov["path_depths"]}
    assert cov["path_depths"]["0"] == 6 and cov["path_depths"]["2"] == 6
    assert report["field_coverage"]["category_interm"] == round(36 / 48, 4)
    assert sum(1 for t in fx["truth"].values() if not t["path"]) == 6


def test_quirk_cleaning():
    assert clean_text('<span class="x">Pots &amp; Pans</span>') == "Pots & Pans"
    assert clean_brand("Unknown") is None and clean_brand(" ") is None and clean_brand("Visit the OXO Store") == "OXO"
    assert clean_brand("by\n    Nike") == "Nike"
    assert category_path(["Home & Kitchen", "Home & Kitchen", "", "Bath</span></span>", "Towels"]) == \
        ["Home & Kitchen", "Bath", "Towels"]
    assert color_of({"\n    Color:\n    ": " Navy "}) == "Navy"
    assert full_image("https://images-na.ssl-images-amazon.com/images/I/71eG75FTJJL._SY88.jpg") == \
        "https://images-na.ssl-images-amazon.com/images/I/71eG75FTJJL.jpg"


def test_malformed_line_is_named_or_counted(tmp_path):
    write_amazon_2018(tmp_path, n_users=10, n_items=20, seed=2, malformed_line=7)
    with pytest.raises(DataError, match=r"Home_and_Kitchen_5\.json: line 7: not valid JSON"):
        ingest("amz", CFG, tmp_path, {})
    inter, _, _, report = ingest("amz", dict(CFG, on_bad_line="skip"), tmp_path, {})
    assert report["amazon-2018"]["bad_lines_skipped"] == {"Home_and_Kitchen_5.json": 1}


@pytest.mark.parametrize("on_bad_line", ["error", "skip"])
def test_metadata_that_is_one_json_array_is_read_as_its_records(tmp_path, on_bad_line):
    # a metadata file saved as one JSON array ([{...}, {...}]) instead of a record per line: every
    # line was "not valid JSON", skipped one by one, and the error then blamed the categories
    write_amazon_2018(tmp_path, n_users=10, n_items=20, seed=2)
    cfg = dict(CFG, on_bad_line=on_bad_line)
    lines_inter, lines_items, _, _ = ingest("amz", cfg, tmp_path, {})
    meta = tmp_path / "meta_Home_and_Kitchen.json"
    records = [json.loads(x) for x in meta.read_text().splitlines() if x.strip()]
    meta.write_text(json.dumps(records, indent=1))
    assert meta.read_text().startswith("[\n {")
    inter, items, _, report = ingest("amz", cfg, tmp_path, {})
    assert len(inter) == len(lines_inter) and list(items["title"]) == list(lines_items["title"])
    assert report["amazon-2018"].get("bad_lines_skipped", {}) == {}
    # an array cut short is named as one, not counted as skipped lines
    meta.write_text(json.dumps(records)[:-40])
    with pytest.raises(DataError, match=r"meta_Home_and_Kitchen\.json: one JSON array \(the file starts with '\['\), "
                                        r"not a record per line, and not valid JSON: "):
        ingest("amz", cfg, tmp_path, {})


def test_gz_files_found_and_read_without_a_flag(tmp_path):
    write_amazon_2018(tmp_path, prefix="A_cat", n_users=8, n_items=20, seed=3, gz=True)
    write_amazon_2018(tmp_path, prefix="B_cat", n_users=8, n_items=20, seed=4, gz=True)
    cfg = {"format": "amazon-2018", "categories": ["A_cat", "B_cat"]}
    assert FORMATS.get("amazon-2018").inputs(cfg, tmp_path) == [
        "A_cat_5.json.gz", "meta_A_cat.json.gz", "B_cat_5.json.gz", "meta_B_cat.json.gz"]
    inter, items, users, _ = ingest("amz", cfg, tmp_path, {})
    assert len(users) == 16 and 20 < len(items) <= 40  # items nobody reviewed are not kept
    # gzip bytes under a plain name are read too: the kind is in the bytes, not the name
    (tmp_path / "A_cat_5.json.gz").rename(tmp_path / "A_cat_5.json")
    assert len(ingest("amz", cfg, tmp_path, {})[0]) == len(inter)


def test_2014_lines_under_the_2018_format_are_a_clear_error(tmp_path, shared_data):
    write_amazon_2014_beauty(tmp_path, shared_data / "amazon-beauty-5core-gram/user_sequence.txt", n_users=5)
    (tmp_path / "reviews_Beauty_5.json.gz").rename(tmp_path / "Beauty_5.json.gz")
    for on_bad in ("error", "skip"):  # a whole file in another format is never skipped line by line
        with pytest.raises(DataError, match=r"meta_Beauty\.json\.gz: line 1: a Python dict literal.*amazon-2014"):
            ingest("b", {"format": "amazon-2018", "prefix": "Beauty", "on_bad_line": on_bad}, tmp_path, {})


def test_2014_format_on_the_real_beauty_5core(tmp_path, shared_data):
    fx = write_amazon_2014_beauty(tmp_path, shared_data / "amazon-beauty-5core-gram/user_sequence.txt")
    inter, items, users, report = ingest("beauty", {"format": "amazon-2014", "prefix": "Beauty"}, tmp_path, {})
    # the standard 2014 Beauty 5-core (SOURCES.md): 22,363 users, 198,502 interactions, 12,101 items
    assert (report["users"], report["interactions"], report["items"]) == (22363, 198502, 12101)
    row = items.set_index("item_id")
    asin = sorted(fx["truth"])[1]
    t = fx["truth"][asin]
    assert row.loc[asin, "brand"] == t["brand"] and row.loc[asin, "poster_url"] == t["image"]
    assert (row.loc[asin, "category_root"], row.loc[asin, "category_leaf"]) == (t["path"][0], t["path"][-1])
    assert report["field_coverage"]["brand"] == round(sum(1 for v in fx["truth"].values() if v["brand"]) / 12101, 4)
    assert report["field_coverage"]["color"] == 0.0  # the 2014 metadata has no colour


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
    # products without a value (empty / "Unknown" brand, no category) are skipped and counted
    assert len(qs) + sum(report["skipped"].values()) == 60
    if measure == "kg_brand":
        assert report["skipped"]["positive_has_no_value"] > 0


def test_abo_alignment_reads_every_shard_and_the_images_table(tmp_path):
    fx = write_amazon_2018(tmp_path / "amz", n_users=20, n_items=30, seed=6, min_reviews=12)
    meta = fx["metadata"]
    recs = [json.loads(line) for line in meta.read_text().splitlines()]
    for r in recs:  # no image URLs: ABO's local images fill them
        r["imageURL"], r["imageURLHighRes"] = [], []
    meta.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    asins = sorted(fx["truth"])[:10]
    abo_fx = write_abo(tmp_path / "abo", fx["truth"], asins, shards=4)
    _, items, _, report = ingest("amz", dict(CFG, metadata={"min_alignment": 0.3}), tmp_path / "amz",
                                 {"abo_listings": [str(abo_fx["listings"] / f"listings_{c}.json.gz")
                                                   for c in "0123456789abcdef"], "abo_images": abo_fx["images"]})
    rep = report["joins"]["abo"]
    # 11 listings (10 reviewed ASINs + one unknown) over 4 shards: 3, 3, 3, 2 lines, 12 shards empty
    assert list(rep["listings_per_shard"].values())[:5] == [3, 3, 3, 2, 0]
    assert rep["aligned"] == 10 and rep["images_filled"] == 10 and rep["alignment_rate"] == round(10 / 30, 4)
    row = items.set_index("item_id")
    for a in asins:
        assert row.loc[a, "poster_url"].startswith("file://") and row.loc[a, "abo_image"].endswith(".jpg")
    assert rep["coverage"]["poster_url"] == round(10 / 30, 4)
    with pytest.raises(ConfigError, match=r"datasets\.amz\.metadata: abo_listings needs \['abo_images'\] too"):
        ingest("amz", CFG, tmp_path / "amz", {"abo_listings": abo_fx["listings"] / "listings_0.json.gz"})
    with pytest.raises(DataError, match=r"join abo aligned 10 of 30 items \(33.33%\), below min_alignment 0.5"):
        ingest("amz", CFG, tmp_path / "amz",
               {"abo_listings": [str(p) for p in sorted(abo_fx["listings"].iterdir())], "abo_images": abo_fx["images"]})


@pytest.mark.parametrize("suffix", ["._SX38_SY50_CR,0,0,38,50_", "._SS40_", "._AC_US40_", "._SY88", "._SL500_AC_SS350_"])
def test_every_rendition_suffix_gives_the_full_image(suffix):
    # 9 of 53 images in a real Appliances head kept their 38x50 thumbnail
    base = "https://images-na.ssl-images-amazon.com/images/I/41Ab+cD-eFL"
    assert full_image(f"{base}{suffix}.jpg") == f"{base}.jpg"


def _abo_fixture(tmp_path):
    fx = write_amazon_2018(tmp_path / "amz", n_users=20, n_items=30, seed=6, min_reviews=12)
    recs = [json.loads(line) for line in fx["metadata"].read_text().splitlines()]
    for r in recs:  # no image URLs: ABO's local images fill them
        r["imageURL"], r["imageURLHighRes"] = [], []
    fx["metadata"].write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    asins = sorted(fx["truth"])[:10]
    abo_fx = write_abo(tmp_path / "abo", fx["truth"], asins, shards=4)
    files = {"abo_listings": [str(abo_fx["listings"] / f"listings_{c}.json.gz") for c in "0123456789abcdef"],
             "abo_images": abo_fx["images"]}
    return asins, files, tmp_path / "abo/images/small"


def test_abo_images_absent_from_images_small_are_counted_not_filled(tmp_path):
    # file:// URIs to absent images/small files passed ingest as images
    asins, files, small = _abo_fixture(tmp_path)
    gone = sorted(small.rglob("*.jpg"))[:3]
    for g in gone:
        g.unlink()
    _, items, _, report = ingest("amz", dict(CFG, metadata={"min_alignment": 0.3}), tmp_path / "amz", files)
    rep = report["joins"]["abo"]
    assert rep["aligned"] == 10 and rep["images_filled"] == 7 and rep["images_missing"] == 3
    assert sorted(e.split(": ")[1] for e in rep["images_missing_examples"]) == \
        sorted(str(g.relative_to(small)) for g in gone)
    row = items.set_index("item_id")
    lost = [a for a in asins if pd.isna(row.loc[a, "poster_url"])]
    assert len(lost) == 3 and all(pd.isna(row.loc[a, "abo_image"]) for a in lost)
    for a in set(asins) - set(lost):  # every URI left points at a file
        assert Path(row.loc[a, "poster_url"].removeprefix("file://")).is_file()
    assert rep["coverage"]["poster_url"] == round(7 / 30, 4)
    # the images-small archive not unpacked at all: one line naming the folder
    shutil.rmtree(small)
    with pytest.raises(DataError, match=r"images/small: not found, but .*images\.csv\.gz places the 10 aligned "
                                        r"products' images there"):
        ingest("amz", dict(CFG, metadata={"min_alignment": 0.3}), tmp_path / "amz", files)


def _five_core_head(tmp_path, n_reviews: int, meta_drop) -> dict:
    """The head of a 5-core reviews file with the metadata file less the asins `meta_drop` picks (a
    metadata head covers other products than a reviews head)."""
    fx = write_amazon_2018(tmp_path, n_users=30, n_items=80, seed=3, quirks=False)
    head = fx["reviews"].read_text().splitlines()[:n_reviews]
    fx["reviews"].write_text("\n".join(head) + "\n")
    reviewed = [json.loads(line)["asin"] for line in head]
    drop = meta_drop(sorted(set(reviewed)))
    meta = [line for line in fx["metadata"].read_text().splitlines() if json.loads(line)["asin"] not in drop]
    fx["metadata"].write_text("\n".join(meta) + "\n")
    return {"reviewed": reviewed, "dropped": drop, "meta_rows": len(meta)}


def test_a_5core_head_whose_items_have_no_metadata_is_an_error(tmp_path):
    # ended with rc 0 and an empty dataset; the README says an error when nothing is left
    fx = _five_core_head(tmp_path, 100, set)
    assert fx["meta_rows"] == 80 - len(set(fx["reviewed"]))  # the metadata holds only other products
    with pytest.raises(DataError, match=rf"Home_and_Kitchen_5\.json: none of the 100 reviews' "
                                        rf"{len(set(fx['reviewed']))} products has a metadata row "
                                        rf"\({fx['meta_rows']} asins in meta_Home_and_Kitchen\.json\)"):
        ingest("amz", CFG, tmp_path, {})


def test_raw_interactions_counts_every_review_read_before_filtering(tmp_path):
    # raw_interactions was counted after dropping reviews without metadata (65 of 100)
    fx = _five_core_head(tmp_path, 100, lambda asins: set(asins[::3]))
    lost = sum(a in fx["dropped"] for a in fx["reviewed"])
    assert 0 < lost < 100
    inter, _, _, report = ingest("amz", CFG, tmp_path, {})
    assert report["raw_interactions"] == 100
    assert report["loaded_interactions"] == 100 - lost == len(inter) == report["interactions"]
    assert report["amazon-2018"]["interactions_without_metadata"] == lost
    assert report["duplicates_dropped"] == 0
