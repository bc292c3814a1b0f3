"""HetRec 2011 Last.fm-2k artist genres for LLaRA's LastFM artists, aligned by artist name: the top
tag of an artist is the tag most users assigned to it in `user_taggedartists.dat` (ties: lowest
tagID), named by `tags.dat`."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.joins import fill, register
from lrworld.data.tables import read_delimited

KEYS = ("hetrec_lastfm_artists", "hetrec_lastfm_tags", "hetrec_lastfm_user_taggedartists")


def _norm(name: str) -> str:
    return unicodedata.normalize("NFKC", str(name)).casefold().strip()


@register("hetrec_lastfm_genres", keys=KEYS, formats=("lastfm-llara",), fields=("genres",),
          check="that artists.dat is HetRec Last.fm-2k (LLaRA's artists are HetRec's, re-indexed)")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    (artists_path,), (tags_path,), (tagged_path,) = (files[k] for k in KEYS)
    artists = read_delimited(artists_path, sep="\t", header=True, dtypes={"id": "id"})
    tags = read_delimited(tags_path, sep="\t", header=True, encoding="latin-1", dtypes={"tagID": "id"})
    tagged = read_delimited(tagged_path, sep="\t", header=True,
                            dtypes={"userID": "id", "artistID": "id", "tagID": "id"})
    tag_name = dict(zip(tags["tagID"], tags["tagValue"].astype(str).str.strip()))
    unknown = set(tagged["tagID"]) - set(tag_name)
    if unknown:
        raise DataError(f"{tagged_path}: tagID {min(unknown, key=int)} is not in {Path(tags_path).name}")
    counts = tagged.drop_duplicates(["userID", "artistID", "tagID"]).groupby(["artistID", "tagID"]).size()
    top = {}
    for (artist, tag), c in counts.items():
        best = top.get(artist)
        if best is None or (c, -int(tag)) > (best[1], -int(best[0])):
            top[artist] = (tag, c)
    by_name = {}
    for aid, name in zip(artists["id"], artists["name"]):
        by_name.setdefault(_norm(name), aid)
    genres, matched, tagged_n = [], 0, 0
    for name, cur in zip(items["title"], items["genres"]):
        aid = by_name.get(_norm(name))
        matched += aid is not None
        t = top.get(aid)
        tagged_n += t is not None
        genres.append(fill(cur, [tag_name[t[0]]] if t else []))
    out = items.copy()
    out["genres"] = genres
    return out, {"artists": int(len(items)), "aligned": int(matched), "with_genre": int(tagged_n),
                 "genres": len({g[0] for g in genres if len(g)})}
