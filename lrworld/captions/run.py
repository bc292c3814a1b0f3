"""Caption every item image of a dataset, through the cache."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lrworld.captions import captioners, images
from lrworld.captions.cache import CaptionCache, identity_key
from lrworld.captions.fetch import FetchPolicy


def caption_items(items: pd.DataFrame, cfg: dict, cache_dir: str | Path, policy: FetchPolicy,
                  image_dir: str | Path | None = None, captioner=None, log=None) -> tuple[pd.DataFrame, dict]:
    """Returns a table item_id, image_sha256, caption, captioner (identity key) and a report.
    Raises images.CaptionError (before any model is loaded) when no item has a usable image."""
    cache_dir = Path(cache_dir)
    found, report = images.collect(items, image_dir, cache_dir / "images", policy)
    cap = captioner or captioners.make(cfg)
    ident = cap.identity()
    key = identity_key(ident)
    cache = CaptionCache(cache_dir / "captions.sqlite")
    rows, hits, made, empty = [], 0, 0, 0
    try:
        for item_id in sorted(found):
            sha = images.sha256_bytes(Path(found[item_id]).read_bytes())
            text = cache.get(sha, key)
            if text is None:
                text = cap.caption(found[item_id])
                cache.put(sha, key, text, ident)
                made += 1
                if log:
                    log.info("captioned %s (%s)", item_id, sha[:12])
            else:
                hits += 1
            if not text.strip():
                empty += 1
                continue
            rows.append({"item_id": item_id, "image_sha256": sha, "caption": text, "captioner": key})
    finally:
        cache.close()
    report.update({"captioner": ident, "captioner_key": key, "captioned": made, "cache_hits": hits,
                   "empty_captions": empty, "items_with_caption": len(rows)})
    return pd.DataFrame(rows, columns=["item_id", "image_sha256", "caption", "captioner"]), report
