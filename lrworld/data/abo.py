"""Optional alignment of Amazon products with Amazon Berkeley Objects (ABO) by ASIN.

ABO listings (`listings/metadata/listings_*.json.gz`, JSON lines: item_id = ASIN, main_image_id,
color [{language_tag, value}], ...) and image metadata (`images/metadata/images.csv.gz`: image_id,
height, width, path; the files under `images/small/<path>`). A matched product without an image
URL gets its ABO main image (a local file, so captioning needs no download); one without a colour
gets ABO's English colour.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.jsonlines import open_text, read_records


def _en(values) -> str | None:
    if not isinstance(values, list):
        return None
    for lang in ("en_US", "en_GB", "en_CA", "en_AU", "en_IN", None):
        for v in values:
            if isinstance(v, dict) and (lang is None or v.get("language_tag") == lang) and \
                    isinstance(v.get("value"), str) and v["value"].strip():
                return v["value"].strip()
    return None


def read_images_csv(path: Path) -> dict[str, str]:
    if not path.exists():
        raise DataError(f"{path}: file not found")
    with open_text(path) as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"image_id", "path"} <= set(reader.fieldnames):
            raise DataError(f"{path}: expected columns image_id,height,width,path; found {reader.fieldnames}")
        return {r["image_id"]: r["path"] for r in reader}


def join_abo(items: pd.DataFrame, listings_path, images_path, on_bad: str = "error") -> tuple[pd.DataFrame, dict]:
    images_path = Path(images_path)
    image_files = read_images_csv(images_path)
    small = images_path.parent.parent / "small"
    wanted = set(items["item_id"].astype(str))
    bad = Counter()
    abo = {}
    for _, rec in read_records(listings_path, ("item_id",), on_bad, bad):
        asin = str(rec["item_id"])
        if asin in wanted and asin not in abo:
            img = image_files.get(rec.get("main_image_id") or "")
            abo[asin] = {"image": (small / img) if img else None, "color": _en(rec.get("color"))}
    out = items.copy()
    if "color" not in out.columns:
        out["color"] = None
    abo_image, poster, color = [], [], []
    filled_img = filled_color = 0
    for asin, url, col in zip(out["item_id"].astype(str), out["poster_url"], out["color"]):
        a = abo.get(asin, {})
        img = a.get("image")
        abo_image.append(str(img) if img else None)
        if (not isinstance(url, str) or not url) and img is not None:
            url = img.as_uri()
            filled_img += 1
        poster.append(url)
        if (not isinstance(col, str) or not col) and a.get("color"):
            col = a["color"]
            filled_color += 1
        color.append(col)
    out["abo_image"], out["poster_url"], out["color"] = abo_image, poster, color
    return out, {"listings": str(listings_path), "matched_asins": len(abo), "images_filled": filled_img,
                 "colors_filled": filled_color, "bad_lines_skipped": dict(bad)}
