"""What the Amazon review dumps (McAuley lab, 2014 and 2018 releases) share: cleaning of the
metadata's quirks, the taxonomy levels, image URLs, and one loader that both formats call.

The real metadata has quirks the loader tolerates: HTML markup and entities in titles, brands and
categories; empty brands ("" or "Unknown"); repeated asins (the first row wins, counted); a
category path that is empty, repeats a level or ends in markup. Taxonomy levels: root = first
category, leaf = last, intermediate = `taxonomy.interm_level` (default 1, the second level), kept
only when it is strictly between root and leaf. The ingest report gives each level's coverage.
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.jsonlines import read_records

_TAG = re.compile(r"<[^>]*>")
_WS = re.compile(r"\s+")
NO_BRAND = {"", "unknown", "n/a", "na", "none", "generic", "unbranded", "."}
COLOR_KEYS = {"color", "colour", "color name"}
# Amazon image URLs carry a rendition suffix (`._SS40_`, `._SY88`, `._AC_US40_`,
# `._SX38_SY50_CR,0,0,38,50_`): everything from the first `._` of the file name to its extension.
# Without it the URL is the full image.
_RENDITION = re.compile(r"\._[^/]*?(?=\.[a-zA-Z]+$)")

CATEGORIES = {"type": "array", "minItems": 1, "uniqueItems": True,
              "items": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
              "description": "category file names (e.g. Home_and_Kitchen): several roots in one dataset"}
PREFIX = {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$", "description": "one category (instead of categories)"}
TAXONOMY = {"type": "object", "additionalProperties": False, "default": {},
            "properties": {"interm_level": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1}},
            "description": "which level of the category path is the intermediate category (0 = root)"}

ITEM_COLUMNS = ["item_id", "title", "brand", "color", "category_path", "category_root", "category_leaf",
                "category_interm", "poster_url", "also_buy"]


def clean_text(v) -> str | None:
    """Markup and entities out, whitespace collapsed; None for nothing left."""
    if not isinstance(v, str):
        return None
    text = _WS.sub(" ", html.unescape(_TAG.sub(" ", v))).strip()
    return text or None


def clean_brand(v) -> str | None:
    b = clean_text(v)
    if b is None:
        return None
    b = re.sub(r"^(Visit the |by )", "", b).removesuffix(" Store").strip()
    return None if b.lower() in NO_BRAND else b


def category_path(v) -> list[str]:
    """The taxonomy path with markup removed, empty levels dropped and repeated levels collapsed."""
    if not isinstance(v, list):
        return []
    out: list[str] = []
    for c in v:
        c = clean_text(c)
        if c and c not in out:
            out.append(c)
    return out


def color_of(*dicts) -> str | None:
    """The colour of a `details` / `style` dict; keys are matched without case, colon or the
    whitespace some 2018 rows carry (`"\\n    Color:\\n    "`)."""
    for d in dicts:
        if isinstance(d, dict):
            for k, v in d.items():
                if isinstance(k, str) and k.strip().rstrip(":").strip().lower() in COLOR_KEYS:
                    c = clean_text(v)
                    if c:
                        return c
    return None


def full_image(url: str) -> str:
    return _RENDITION.sub("", url)


def first_image(meta: dict, fields: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(URL, field it came from) of the first image in the first field that has one."""
    for f in fields:
        v = meta.get(f)
        urls = [v] if isinstance(v, str) else v if isinstance(v, list) else []
        for u in urls:
            if isinstance(u, str) and u.startswith(("http://", "https://")):
                return full_image(u), f
    return None, None


def prefixes(cfg: dict, fmt: str) -> list[str]:
    """One category file pair (`prefix`) or several (`categories`: the paper's product domain spans
    several roots, and one category file has one root)."""
    out = list(cfg.get("categories") or ([cfg["prefix"]] if cfg.get("prefix") else []))
    if not out:
        raise DataError(f"format {fmt} needs `prefix` or `categories` (e.g. Home_and_Kitchen)")
    return out


def taxonomy_coverage(items: pd.DataFrame) -> dict:
    n = max(len(items), 1)
    depth = Counter(len(p) for p in items["category_path"])
    return {"items": int(len(items)),
            "root": round(float(items["category_root"].notna().sum()) / n, 4),
            "intermediate": round(float(items["category_interm"].notna().sum()) / n, 4),
            "leaf": round(float(items["category_leaf"].notna().sum()) / n, 4),
            "path_depths": {str(k): int(v) for k, v in sorted(depth.items())}}


def load_amazon(raw: Path, cfg: dict, pairs: list[tuple[str, str]], image_fields: tuple[str, ...],
                category: Callable[[dict], list], parse_meta: Callable) -> tuple:
    """Reviews and metadata files, pair by pair -> (interactions, items, users, report)."""
    on_bad, enc = cfg["on_bad_line"], cfg["encoding"]
    interm_level = int(cfg["taxonomy"]["interm_level"])
    bad = Counter()
    rows, review_colors = [], defaultdict(Counter)
    for reviews_name, _ in pairs:
        for lineno, r in read_records(raw / reviews_name, ("reviewerID", "asin", "unixReviewTime"), on_bad, bad,
                                      encoding=enc):
            try:
                ts = int(r["unixReviewTime"])
                rating = float(r["overall"]) if r.get("overall") is not None else float("nan")
            except (TypeError, ValueError):
                if on_bad == "skip":
                    bad[Path(reviews_name).name] += 1
                    continue
                raise DataError(f"{raw / reviews_name}: line {lineno}: unixReviewTime/overall not numeric") from None
            rows.append((str(r["reviewerID"]), str(r["asin"]), rating, ts))
            c = color_of(r.get("style"))
            if c:
                review_colors[str(r["asin"])][c] += 1
    inter = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])

    items, dup, image_from = {}, 0, Counter()
    for _, meta_name in pairs:
        for _, m in read_records(raw / meta_name, ("asin",), on_bad, bad, parse=parse_meta, encoding=enc):
            asin = str(m["asin"])
            if asin in items:
                dup += 1
                continue
            path = category_path(category(m))
            image, field = first_image(m, image_fields)
            image_from[field or "none"] += 1
            colors = review_colors.get(asin)
            items[asin] = {
                "item_id": asin,
                "title": clean_text(m.get("title")) or "",
                "brand": clean_brand(m.get("brand")),
                # The listing's own colour first; else the colour most buyers chose (ties: alphabetical).
                "color": color_of(m.get("details"), m.get("style"))
                or (min(colors, key=lambda c: (-colors[c], c)) if colors else None),
                "category_path": path,
                "category_root": path[0] if path else None,
                "category_leaf": path[-1] if len(path) >= 2 else None,
                "category_interm": path[interm_level] if 0 < interm_level < len(path) - 1 else None,
                "poster_url": image,
                "also_buy": [str(a) for a in (m.get("also_buy") or (m.get("related") or {}).get("also_bought") or [])
                             if isinstance(a, str)],
            }
    items_df = pd.DataFrame(list(items.values()), columns=ITEM_COLUMNS)
    known = inter["item_id"].isin(items_df["item_id"])
    if len(inter) and not known.any():
        # e.g. the head of a reviews file with the head of its metadata: nothing would be left
        raise DataError(f"{raw / pairs[0][0]}: none of the {len(inter)} reviews' {inter['item_id'].nunique()} products "
                        f"has a metadata row ({len(items_df)} asins in {', '.join(m for _, m in pairs)}); "
                        f"the files are of different categories or releases, or the metadata misses them")
    report = {
        "files": [f for p in pairs for f in p],
        "bad_lines_skipped": dict(bad),
        "metadata_duplicate_asins": dup,
        # every review read, before those without metadata are dropped (ingest's raw_interactions)
        "interactions_read": int(len(inter)),
        # Reviews whose product has no metadata row cannot be shown; they are dropped, counted.
        "interactions_without_metadata": int((~known).sum()),
        "metadata_image_field": dict(sorted(image_from.items())),
        "taxonomy_interm_level": interm_level,
    }
    inter = inter[known]
    items_df = items_df[items_df["item_id"].isin(inter["item_id"])].reset_index(drop=True)
    report.update({
        "items_with_brand": int(items_df["brand"].notna().sum()),
        "items_with_color": int(items_df["color"].notna().sum()),
        "items_with_image": int(items_df["poster_url"].notna().sum()),
        "taxonomy_coverage": taxonomy_coverage(items_df),
    })
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_df, users, report
