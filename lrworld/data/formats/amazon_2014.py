"""Amazon product data 2014 (McAuley lab), 5-core: `reviews_<Category>_5.json[.gz]` (JSON lines)
and `meta_<Category>.json[.gz]`, whose lines are Python dict literals (single quotes), parsed with
`ast.literal_eval`, never `eval`.

Metadata: asin, title, brand, categories (a list of taxonomy paths; the first is used), imUrl,
related.also_bought. There is no colour field, so `attr_color` has no values on this format.
"""

from __future__ import annotations

from pathlib import Path

from lrworld.data import amazon
from lrworld.data.formats import ON_BAD_LINE, encoding, register
from lrworld.data.jsonlines import parse_literal
from lrworld.data.textio import resolve


def pairs(cfg: dict) -> list[tuple[str, str]]:
    return [(f"reviews_{p}_5.json", f"meta_{p}.json") for p in amazon.prefixes(cfg, "amazon-2014")]


def first_path(meta: dict) -> list:
    paths = meta.get("categories")
    return paths[0] if isinstance(paths, list) and paths and isinstance(paths[0], list) else []


@register("amazon-2014",
          licence="Amazon Review Data 2014 (McAuley lab): research and non-commercial use",
          files=lambda cfg: [f for p in pairs(cfg) for f in p],
          options={"categories": amazon.CATEGORIES, "prefix": amazon.PREFIX, "taxonomy": amazon.TAXONOMY,
                   "on_bad_line": ON_BAD_LINE, "encoding": encoding("utf-8")})
def load(raw: Path, cfg: dict):
    """Amazon product data 2014, 5-core reviews + metadata as Python literals."""
    files = [tuple(resolve(raw, f).name for f in p) for p in pairs(cfg)]
    return amazon.load_amazon(raw, cfg, files, ("imUrl",), first_path, parse_literal)
