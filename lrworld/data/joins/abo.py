"""Amazon Berkeley Objects (ABO) aligned to Amazon products by ASIN (paper §3: product images).

`abo_listings`: the `listings/metadata` folder (all 16 shards, `listings_0.json.gz` ...
`listings_f.json.gz`), one shard file, or a list of shard files; JSON lines with item_id (= ASIN),
main_image_id, brand / color [{language_tag, value}]. `abo_images`: `images/metadata/images.csv.gz`
(image_id, height, width, path; the files under `images/small/<path>`). A matched product without
an image gets its ABO main image (a local file, so captioning needs no download); one without a
colour or brand gets ABO's English one. An image whose file is absent from `images/small` fills
nothing (counted as `images_missing`, with examples); no `images/small` folder is an error.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.joins import fill, register
from lrworld.data.jsonlines import read_records
from lrworld.data.textio import open_text

SHARDS = [f"listings_{c}.json.gz" for c in "0123456789abcdef"]
_EN = ("en_US", "en_GB", "en_CA", "en_AU", "en_IN", None)


def listing_files(key: str, value) -> list[str]:
    if key != "abo_listings":
        return [str(value)]
    if isinstance(value, list):
        return [str(v) for v in value]
    # A folder means every published shard: reading one of the sixteen silently loses the rest.
    return [str(Path(value) / s) for s in SHARDS] if not str(value).endswith((".json", ".gz")) else [str(value)]


def english(values) -> str | None:
    if not isinstance(values, list):
        return None
    for lang in _EN:
        for v in values:
            if isinstance(v, dict) and (lang is None or v.get("language_tag") == lang) and \
                    isinstance(v.get("value"), str) and v["value"].strip():
                return v["value"].strip()
    return None


def read_images_csv(path: Path) -> dict[str, str]:
    with open_text(path) as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"image_id", "path"} <= set(reader.fieldnames):
            raise DataError(f"{path}: expected columns image_id,height,width,path; found {reader.fieldnames}")
        return {r["image_id"]: r["path"] for r in reader}


def check_images(abo: dict, small: Path, images_path: Path) -> list[str]:
    """Drop the images whose file is not under images/small (their product keeps its own image URL,
    if any); return them as examples. No images/small folder at all is an error: every file:// URI
    would point at nothing."""
    wanted = {a: r["image"] for a, r in abo.items() if r["image"] is not None}
    if wanted and not small.is_dir():
        raise DataError(f"{small}: not found, but {images_path} places the {len(wanted)} aligned products' images "
                        f"there: unpack ABO's images-small archive beside images/metadata")
    missing = []
    for asin, image in sorted(wanted.items()):
        if not image.is_file():
            missing.append(f"{asin}: {image.relative_to(small)}")
            abo[asin]["image"] = None
    return missing


@register("abo", keys=("abo_listings", "abo_images"), formats=("amazon-2018", "amazon-2014"),
          fields=("poster_url", "color", "brand", "abo_image"), expand=listing_files,
          key_schema={"abo_listings": {"oneOf": [{"type": "string"},
                                                 {"type": "array", "minItems": 1, "items": {"type": "string"}}]}},
          check="that abo_listings names the listings/metadata folder (all 16 shards); ABO covers 147,702 "
                "products, so only part of a 5-core category aligns")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    (images_path,) = files["abo_images"]
    image_files = read_images_csv(Path(images_path))
    small = Path(images_path).resolve().parent.parent / "small"
    wanted = set(items["item_id"].astype(str))
    bad, abo, per_shard = Counter(), {}, {}
    for shard in files["abo_listings"]:
        n = 0
        for _, rec in read_records(shard, ("item_id",), opts["on_bad_line"], bad):
            n += 1
            asin = str(rec["item_id"])
            if asin in wanted and asin not in abo:
                img = image_files.get(rec.get("main_image_id") or "")
                abo[asin] = {"image": small / img if img else None, "color": english(rec.get("color")),
                             "brand": english(rec.get("brand"))}
        per_shard[Path(shard).name] = n
    missing = check_images(abo, small, Path(images_path))
    out = items.copy()
    for col in ("color", "brand"):
        if col not in out.columns:
            out[col] = None
    ids = out["item_id"].astype(str)
    filled = Counter()

    def take(col, cur, new):
        value = fill(cur, new)
        filled[col] += value is not cur and new is not None
        return value

    out["abo_image"] = [str(abo[i]["image"]) if i in abo and abo[i]["image"] else None for i in ids]
    out["poster_url"] = [take("poster_url", cur, abo[i]["image"].as_uri() if i in abo and abo[i]["image"] else None)
                         for i, cur in zip(ids, out["poster_url"])]
    for col in ("color", "brand"):
        out[col] = [take(col, cur, abo.get(i, {}).get(col)) for i, cur in zip(ids, out[col])]
    return out, {"listings_per_shard": per_shard, "images_table": str(images_path), "aligned": len(abo),
                 "images_filled": filled["poster_url"], "colors_filled": filled["color"],
                 "brands_filled": filled["brand"], "images_missing": len(missing),
                 "images_missing_examples": missing[:5],
                 "bad_lines_skipped": dict(bad)}
