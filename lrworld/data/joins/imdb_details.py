"""IMDb details scraped for MovieLens-100K (`movielens100k_details.json`, keyed by ML-100K
movie_id): director, cast, plot (logline) and poster URL.

The file was scraped by title search and about 8% of its rows describe another film; a row is
kept only when its IMDb year is within `year_tolerance` of the MovieLens year (a film's release
year and its IMDb year differ by one for late-December releases).
"""

from __future__ import annotations

import json

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.joins import YEAR_TOLERANCE, fill, register


@register("imdb_details", keys=("imdb_details",), formats=("ml-100k",),
          fields=("director", "cast", "plot", "poster_url"), options={"year_tolerance": YEAR_TOLERANCE},
          check="that the details file is keyed by this dataset's movie ids and its years agree (year_tolerance)")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    (path,) = files["imdb_details"]
    tolerance = opts["year_tolerance"]
    try:
        with open(path, encoding="utf-8") as fh:
            rows = json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(rows, list):
        raise DataError(f"{path}: expected a JSON list of movie objects")
    ml_year = dict(zip(items["item_id"].astype(str), items["year"]))
    kept, dropped_year, dropped_no_year, dropped_unknown_id = {}, 0, 0, 0
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "movie_id" not in row:
            raise DataError(f"{path}: element {i} has no movie_id")
        mid = str(row["movie_id"])
        if mid not in ml_year:
            dropped_unknown_id += 1
            continue
        if mid in kept:
            raise DataError(f"{path}: element {i}: movie_id {mid!r} appears more than once")
        try:
            year = int(float(row.get("year")))
        except (TypeError, ValueError):
            dropped_no_year += 1
            continue
        ref = ml_year[mid]
        if pd.isna(ref) or abs(year - int(ref)) > tolerance:
            dropped_year += 1
            continue
        posters = row.get("poster_url") or []
        kept[mid] = {"director": list(row.get("director") or []), "cast": list(row.get("cast") or []),
                     "plot": row.get("description") or None,
                     # The largest of the three renditions, for captioning.
                     "poster_url": posters[-1] if posters else None}
    out = items.copy()
    for col in ("director", "cast", "plot", "poster_url"):
        out[col] = [fill(cur, kept[i][col]) if i in kept else cur
                    for i, cur in zip(out["item_id"].astype(str), out[col])]
    return out, {"source": str(path), "rows": len(rows), "aligned": len(kept), "dropped_year_mismatch": dropped_year,
                 "dropped_year_not_numeric": dropped_no_year, "dropped_unknown_item": dropped_unknown_id,
                 "year_tolerance": tolerance}
