"""Amazon Review Data 2018 (McAuley lab), 5-core: `<Category>_5.json[.gz]` reviews and
`meta_<Category>.json[.gz]` metadata, JSON lines, both releases.

Reviews: reviewerID, asin, overall, unixReviewTime (+ style, e.g. {"Color:": " Black"}).
Metadata: asin, title, brand, category (the taxonomy path, root first), details / style for the
colour, also_buy, and the images: `imageURLHighRes` / `imageURL` in the current release
(metaFiles2), `image` (thumbnails, `._SS40_`) in the older one (metaFiles). The rendition suffix
is dropped, so both give the full-size image.
"""

from __future__ import annotations

from pathlib import Path

from lrworld.data import amazon
from lrworld.data.formats import ON_BAD_LINE, encoding, register
from lrworld.data.jsonlines import parse_json
from lrworld.data.textio import resolve

IMAGE_FIELDS = ("imageURLHighRes", "imageURL", "image")


def pairs(cfg: dict) -> list[tuple[str, str]]:
    return [(f"{p}_5.json", f"meta_{p}.json") for p in amazon.prefixes(cfg, "amazon-2018")]


@register("amazon-2018",
          licence="Amazon Review Data 2018 (McAuley lab): research and non-commercial use",
          files=lambda cfg: [f for p in pairs(cfg) for f in p],
          options={"categories": amazon.CATEGORIES, "prefix": amazon.PREFIX, "taxonomy": amazon.TAXONOMY,
                   "on_bad_line": ON_BAD_LINE, "encoding": encoding("utf-8")})
def load(raw: Path, cfg: dict):
    """Amazon Review Data 2018, 5-core reviews + metadata (both metadata releases)."""
    files = [tuple(resolve(raw, f).name for f in p) for p in pairs(cfg)]
    return amazon.load_amazon(raw, cfg, files, IMAGE_FIELDS, lambda m: m.get("category"), parse_json)
