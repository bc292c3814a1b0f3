"""Mini LastFM (paper §5.5): LLaRA's LastFM split as JSON lines (`<split>_data.jsonl`: seq of 10
artist ids padded with 4606, len_seq, next) and `id2name.txt` (`id::artist name`), one user per row.

LLaRA publishes the splits as pandas pickles (`<split>_data.df`); the project never unpickles data,
so they are read once converted to JSON lines (docs/datasets.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.formats import encoding, register
from lrworld.data.textio import open_text, require

SPLIT = {"enum": ["Test", "Val"], "default": "Test", "description": "which LLaRA split file (<split>_data.jsonl)"}


def split_file(cfg: dict) -> str:
    return f"{cfg['split']}_data.jsonl"


def read_id2name(path: Path, enc: str) -> dict[str, str]:
    out = {}
    with open_text(path, enc) as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            if "::" not in line:
                raise DataError(f"{path}: line {n}: expected 'id::name', got {line!r}")
            i, name = line.split("::", 1)
            if i.strip() in out:
                raise DataError(f"{path}: line {n}: artist id {i.strip()!r} appears more than once")
            out[i.strip()] = name.strip()
    return out


def read_rows(path: Path, enc: str) -> list[tuple[int, dict]]:
    """(line number, {seq, len_seq, next, row_index}) for each LLaRA row."""
    out = []
    with open_text(require(path), enc) as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.append((n, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}: line {n}: not valid JSON ({exc.msg})") from None
    return out


@register("lastfm-llara",
          licence="LLaRA's LastFM split (HetRec 2011 Last.fm-2k): non-commercial use, cite Last.fm "
                  "and HetRec 2011",
          files=lambda cfg: [split_file(cfg), "id2name.txt"],
          options={"split": SPLIT, "encoding": encoding("utf-8")})
def load(raw: Path, cfg: dict):
    """LLaRA's LastFM split + id2name.txt (one row per user)."""
    enc = cfg["encoding"]
    names = read_id2name(require(raw / "id2name.txt"), enc)
    path = raw / split_file(cfg)
    rows = []
    for n, r in read_rows(path, enc):
        try:
            seq, k, nxt = r["seq"], int(r["len_seq"]), r["next"]
            user = str(r.get("row_index", n - 1))
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"{path}: line {n}: expected {{seq, len_seq, next}} ({exc})") from None
        hist = [str(int(x)) for x in seq[:k]]
        for pos, it in enumerate(hist + [str(int(nxt))]):
            if it not in names:
                raise DataError(f"{path}: line {n}: artist id {it} is not in id2name.txt")
            # The order is all LLaRA keeps: positions stand in for timestamps.
            rows.append((user, it, float("nan"), pos))
    inter = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])
    items = pd.DataFrame({"item_id": list(names), "title": list(names.values())})
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique(), key=int)})
    return inter, items, users, {"split": path.name, "rows": int(inter["user_id"].nunique()), "artists": len(names)}
