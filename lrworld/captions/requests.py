"""Captions through the one inference stage: every item image becomes a request (the Figure 3
instruction, the image, and its sha256, which the response cache keys on), the `answer` rule asks
the captioner (track `captions`, model `captioner`), and the captions are read back from the cache.
An image already described by the same captioner with the same instruction, in any dataset, is
never asked again."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lrworld.captions import images
from lrworld.captions.fetch import FetchPolicy

PROMPT_FILE = Path(__file__).resolve().parents[1] / "templates" / "captions" / "figure3.txt"
COLUMNS = ["item_id", "image_sha256", "caption", "captioner"]


def instruction(path: str | Path | None = None) -> str:
    return Path(path or PROMPT_FILE).read_text(encoding="utf-8").strip()


def build(dataset: str, items: pd.DataFrame, prompt: str, download_dir: str | Path, policy: FetchPolicy,
          image_dir: str | Path | None = None, fetch=None) -> tuple[list[dict], dict]:
    """One request per item with a usable image, and the images report. Raises
    images.CaptionError (before any model is loaded) when no item has one."""
    kw = {"fetch": fetch} if fetch else {}
    found, report = images.collect(items, image_dir, download_dir, policy, **kw)
    reqs = []
    for item_id in sorted(found):
        path = Path(found[item_id]).resolve()
        reqs.append({"qid": f"{dataset}/caption/{item_id}", "item_id": item_id, "prompt": prompt,
                     "image_paths": [str(path)], "image_sha256": [images.sha256_bytes(path.read_bytes())]})
    report["requests"] = len(reqs)
    return reqs, report


def captions_table(reqs: list[dict], answers: list[dict], identity: dict, images_report: dict) -> tuple[pd.DataFrame, dict]:
    """The captions of cached answers; an empty caption leaves its item without one (counted)."""
    from lrworld.inference.cache import identity_key

    key = identity_key(identity)
    rows = [{"item_id": r["item_id"], "image_sha256": r["image_sha256"][0], "caption": a["raw_text"].strip(),
             "captioner": key} for r, a in zip(reqs, answers) if (a.get("raw_text") or "").strip()]
    report = dict(images_report, captioner=identity, captioner_key=key, empty_captions=len(reqs) - len(rows),
                  items_with_caption=len(rows))
    return pd.DataFrame(rows, columns=COLUMNS), report
