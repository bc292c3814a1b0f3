"""Mini LastFM (paper §5.5): LLaRA's LastFM test set (`Test_data.jsonl`: seq of 10 artist ids padded
with 4606, len_seq, next; `id2name.txt`: `id::artist name`), one user per row.

Genres (for `attr_artist_genre`) come from HetRec 2011 Last.fm-2k, aligned by artist name: the top
tag of an artist is the tag most users assigned to it in `user_taggedartists.dat` (ties: lowest
tagID), named by `tags.dat`. That file is not redistributed here; give its path as metadata.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.tables import read_delimited

FILES = ["Test_data.jsonl", "id2name.txt"]


def required(cfg: dict) -> list[str]:
    return [f"{cfg.get('split', 'Test')}_data.jsonl", "id2name.txt"]


def read_id2name(path: Path) -> dict[str, str]:
    if not path.exists():
        raise DataError(f"{path}: file not found")
    out = {}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            if "::" not in line:
                raise DataError(f"{path}: line {n}: expected 'id::name', got {line!r}")
            i, name = line.split("::", 1)
            out[i.strip()] = name.strip()
    return out


def load_lastfm_llara(raw_dir: str | Path, cfg: dict):
    raw = Path(raw_dir)
    split_file, names_file = required(cfg)
    names = read_id2name(raw / names_file)
    rows = []
    path = raw / split_file
    if not path.exists():
        raise DataError(f"{path}: file not found")
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                seq, k, nxt = r["seq"], int(r["len_seq"]), r["next"]
                user = str(r.get("row_index", n - 1))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise DataError(f"{path}: line {n}: expected {{seq, len_seq, next}} ({exc})") from None
            hist = [str(x) for x in seq[:k]]
            for pos, it in enumerate(hist + [str(nxt)]):
                if it not in names:
                    raise DataError(f"{path}: line {n}: artist id {it} is not in {names_file}")
                # The order is all LLaRA keeps: positions stand in for timestamps.
                rows.append((user, it, float("nan"), pos))
    inter = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])
    items = pd.DataFrame({"item_id": list(names), "title": list(names.values())})
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique(), key=int)})
    return inter, items, users, {"split": split_file, "rows": int(inter["user_id"].nunique()),
                                 "artists": len(names)}


def _norm(name: str) -> str:
    return unicodedata.normalize("NFKC", str(name)).casefold().strip()


def join_hetrec_genres(items: pd.DataFrame, artists_path, tags_path, tagged_path) -> tuple[pd.DataFrame, dict]:
    """Each artist's genre = the top tag of its HetRec namesake."""
    artists = read_delimited(artists_path, sep="\t", header=True, dtypes={"id": "int"})
    tags = read_delimited(tags_path, sep="\t", header=True, encoding="latin-1", dtypes={"tagID": "int"})
    tagged = read_delimited(tagged_path, sep="\t", header=True,
                            dtypes={"userID": "int", "artistID": "int", "tagID": "int"})
    tag_name = dict(zip(tags["tagID"], tags["tagValue"].astype(str).str.strip()))
    unknown = set(tagged["tagID"]) - set(tag_name)
    if unknown:
        raise DataError(f"{tagged_path}: tagID {min(unknown)} is not in {Path(tags_path).name}")
    counts = tagged.drop_duplicates(["userID", "artistID", "tagID"]).groupby(["artistID", "tagID"]).size()
    top = {}
    for (artist, tag), c in counts.items():
        best = top.get(artist)
        if best is None or (c, -tag) > (best[1], -best[0]):
            top[artist] = (tag, c)
    by_name = {}
    for aid, name in zip(artists["id"], artists["name"]):
        by_name.setdefault(_norm(name), aid)
    genres, matched, tagged_n = [], 0, 0
    for name in items["title"]:
        aid = by_name.get(_norm(name))
        matched += aid is not None
        t = top.get(aid)
        tagged_n += t is not None
        genres.append([tag_name[t[0]]] if t else [])
    out = items.copy()
    out["genres"] = genres
    distinct = {g[0] for g in genres if g}
    return out, {"artists": int(len(items)), "matched_by_name": int(matched), "with_genre": int(tagged_n),
                 "genres": len(distinct)}
