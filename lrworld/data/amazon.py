"""Amazon Review Data 2018 (McAuley lab), 5-core: `<prefix>_5.json` reviews and `meta_<prefix>.json`
metadata, both JSON lines (optionally .gz), read as published.

Reviews: reviewerID, asin, overall, unixReviewTime (+ style, e.g. {"Color:": " Black"}).
Metadata: asin, title, brand, category (the taxonomy path, root first), details / style for the
colour, imageURLHighRes / imageURL, also_buy, ...

The real metadata has quirks the loader tolerates: HTML markup and entities in titles, brands and
categories; empty brands ("" or "Unknown"); repeated asins (the first row wins, counted); a
category path that repeats a level or ends in markup. Taxonomy levels: root = first category,
leaf = last, intermediate = `taxonomy.interm_level` (default 1, the second level), kept only when
it is strictly between root and leaf.
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.jsonlines import read_records

_TAG = re.compile(r"<[^>]*>")
_WS = re.compile(r"\s+")
NO_BRAND = {"", "unknown", "n/a", "na", "none", "generic", "unbranded", "."}
COLOR_KEYS = ("Color:", "Colour:", "Color", "Colour", "Color Name:", "color")


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
    for d in dicts:
        if isinstance(d, dict):
            for k in COLOR_KEYS:
                c = clean_text(d.get(k))
                if c:
                    return c
    return None


def file_names(prefix: str, gz: bool = False) -> tuple[str, str]:
    ext = ".json.gz" if gz else ".json"
    return f"{prefix}_5{ext}", f"meta_{prefix}{ext}"


def prefixes(cfg: dict) -> list[str]:
    """One category file pair (`prefix`) or several (`categories`: the paper's product domain spans
    several roots, and a 2018 category file has one root)."""
    out = list(cfg.get("categories") or ([cfg["prefix"]] if cfg.get("prefix") else []))
    if not out:
        raise DataError("format amazon-2018 needs `prefix` or `categories` (e.g. Home_and_Kitchen)")
    return out


def required(cfg: dict) -> list[str]:
    return [f for p in prefixes(cfg) for f in file_names(p, bool(cfg.get("gzip", False)))]


def _records(raw: Path, files: list[str], required_keys, on_bad, bad):
    for name in files:
        for lineno, rec in read_records(raw / name, required_keys, on_bad, bad):
            yield lineno, rec, name


def load_amazon_2018(raw_dir: str | Path, cfg: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict]:
    raw = Path(raw_dir)
    names = [file_names(p, bool(cfg.get("gzip", False))) for p in prefixes(cfg)]
    on_bad = cfg.get("on_bad_line", "error")
    interm_level = int(cfg.get("taxonomy", {}).get("interm_level", 1))
    bad = Counter()

    rows, review_colors = [], defaultdict(Counter)
    for lineno, r, reviews_name in _records(raw, [n[0] for n in names], ("reviewerID", "asin", "unixReviewTime"),
                                            on_bad, bad):
        try:
            ts = int(r["unixReviewTime"])
            rating = float(r["overall"]) if r.get("overall") is not None else float("nan")
        except (TypeError, ValueError):
            if on_bad == "skip":
                bad[reviews_name] += 1
                continue
            raise DataError(f"{raw / reviews_name}: line {lineno}: unixReviewTime/overall not numeric") from None
        rows.append((str(r["reviewerID"]), str(r["asin"]), rating, ts))
        c = color_of(r.get("style"))
        if c:
            review_colors[str(r["asin"])][c] += 1
    inter = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])

    items, dup = {}, 0
    for _, m, _ in _records(raw, [n[1] for n in names], ("asin",), on_bad, bad):
        asin = str(m["asin"])
        if asin in items:
            dup += 1
            continue
        path = category_path(m.get("category"))
        images = m.get("imageURLHighRes") or m.get("imageURL") or []
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
            "poster_url": images[0] if isinstance(images, list) and images and isinstance(images[0], str) else None,
            "also_buy": [str(a) for a in (m.get("also_buy") or []) if isinstance(a, str)],
        }
    items_df = pd.DataFrame(list(items.values()), columns=[
        "item_id", "title", "brand", "color", "category_path", "category_root", "category_leaf", "category_interm",
        "poster_url", "also_buy"])
    known = inter["item_id"].isin(items_df["item_id"])
    report = {
        "files": [f for n in names for f in n],
        "bad_lines_skipped": dict(bad),
        "metadata_duplicate_asins": dup,
        # Reviews whose product has no metadata row cannot be shown; they are dropped, counted.
        "interactions_without_metadata": int((~known).sum()),
        "items_with_brand": int(items_df["brand"].notna().sum()),
        "items_with_color": int(items_df["color"].notna().sum()),
        "items_with_category": int(items_df["category_root"].notna().sum()),
        "items_with_image": int(items_df["poster_url"].notna().sum()),
        "taxonomy_interm_level": interm_level,
    }
    inter = inter[known]
    items_df = items_df[items_df["item_id"].isin(inter["item_id"])]
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_df, users, report
