"""Metadata joins that add director, cast, plot (logline) and poster URL to MovieLens items."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.tables import read_delimited


def join_imdb_details(items: pd.DataFrame, path: str | Path, year_tolerance: int = 1) -> tuple[pd.DataFrame, dict]:
    """Join `movielens100k_details.json` (keyed by ML-100K movie_id).

    The file was scraped by title search and about 8% of its rows describe another film; a row is
    kept only when its IMDb year is within `year_tolerance` of the MovieLens year (a film's release
    year and its IMDb year differ by one for late-December releases). Returns the joined items and
    a report with the number of rows dropped and why.
    """
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as fh:
            rows = json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(rows, list):
        raise DataError(f"{path}: expected a JSON list of movie objects")
    ml_year = dict(zip(items["item_id"].astype(str), items["year"]))
    kept, dropped_year, dropped_no_year, dropped_unknown_id = [], 0, 0, 0
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "movie_id" not in row:
            raise DataError(f"{path}: element {i} has no movie_id")
        mid = str(row["movie_id"])
        if mid not in ml_year:
            dropped_unknown_id += 1
            continue
        try:
            year = int(float(row.get("year")))
        except (TypeError, ValueError):
            dropped_no_year += 1
            continue
        ref = ml_year[mid]
        if pd.isna(ref) or abs(year - int(ref)) > year_tolerance:
            dropped_year += 1
            continue
        posters = row.get("poster_url") or []
        kept.append({
            "item_id": mid,
            "director": list(row.get("director") or []),
            "cast": list(row.get("cast") or []),
            "plot": (row.get("description") or None),
            # The largest of the three renditions, for captioning.
            "poster_url": posters[-1] if posters else None,
        })
    meta = pd.DataFrame(kept, columns=["item_id", "director", "cast", "plot", "poster_url"])
    out = items.drop(columns=[c for c in ["director", "cast", "plot", "poster_url"] if c in items.columns])
    out = out.merge(meta, on="item_id", how="left")
    report = {
        "source": str(path),
        "rows": len(rows),
        "joined": len(kept),
        "dropped_year_mismatch": dropped_year,
        "dropped_year_not_numeric": dropped_no_year,
        "dropped_unknown_item": dropped_unknown_id,
        "year_tolerance": year_tolerance,
    }
    return out, report


def join_hetrec_directors(items: pd.DataFrame, path: str | Path) -> tuple[pd.DataFrame, dict]:
    """Join HetRec 2011 `movie_directors.dat` (movieID, directorID, directorName; ML-10M id space,
    which ML-25M and ml-latest share)."""
    df = read_delimited(path, sep="\t", header=True, encoding="latin-1", dtypes={"movieID": "int"})
    if "directorName" not in df.columns:
        raise DataError(f"{path}: missing column 'directorName'; found {list(df.columns)}")
    grouped = df.groupby(df["movieID"].astype(str))["directorName"].agg(lambda s: [x for x in s if isinstance(x, str)])
    out = items.copy()
    had = out["director"] if "director" in out.columns else pd.Series([[]] * len(out), index=out.index)
    out["director"] = [grouped.get(i, list(h) if isinstance(h, list) else []) for i, h in zip(out["item_id"].astype(str), had)]
    n = int(out["item_id"].astype(str).isin(grouped.index).sum())
    return out, {"source": str(path), "rows": len(df), "items_with_director": n}
