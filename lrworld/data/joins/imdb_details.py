"""IMDb details scraped for MovieLens-100K (`movielens100k_details.json`, keyed by ML-100K
movie_id): director, cast, plot (logline) and poster URL.

The file was scraped by title search and about 8% of its rows describe another film; a row is
kept only when its IMDb year is within `year_tolerance` of the MovieLens year (a film's release
year and its IMDb year differ by one for late-December releases), and when no row of another work
names the same IMDb title ("The Mask (1994)" carries Pulp Fiction's tt0110912 row, year
and logline; the file gives no IMDb title to tell which of the two rows is right, so both go).
Rows of one work under two ids (ML-100K's duplicates) may share an IMDb id.
"""

from __future__ import annotations

import json

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.joins import YEAR_TOLERANCE, fill, register
from lrworld.data.joins.guard import Guard, imdb_number, title_similarity


FIELDS = ("director", "cast", "plot", "poster_url", "imdb_id")


# order 5: its IMDb ids let the HetRec join find ML-100K's films by id (and catch a row of another film)
@register("imdb_details", keys=("imdb_details",), formats=("ml-100k",), order=5,
          fields=FIELDS, options={"year_tolerance": YEAR_TOLERANCE},
          check="that the details file is keyed by this dataset's movie ids and its years agree (year_tolerance)")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    (path,) = files["imdb_details"]
    tolerance = opts["year_tolerance"]
    rows = _read_rows(path)
    ml_year = dict(zip(items["item_id"].astype(str), items["year"]))
    ml_title = dict(zip(items["item_id"].astype(str), items["title"]))
    guard = Guard(tolerance)
    shared = _shared_with_another_work(_claimed_titles(rows, ml_year, tolerance), ml_year, ml_title,
                                       guard.min_similarity)
    kept, dropped = _kept_details(path, rows, ml_year, ml_title, tolerance, shared, guard)
    return _filled(items, kept), {"source": str(path), "rows": len(rows), "aligned": len(kept), **dropped,
                                  **guard.report()}


def _read_rows(path) -> list:
    """The file's list of movie objects; a clear error for anything else."""
    try:
        with open(path, encoding="utf-8") as fh:
            rows = json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(rows, list):
        raise DataError(f"{path}: expected a JSON list of movie objects")
    return rows


def _imdb_year(row: dict) -> int | None:
    """The row's IMDb year, None where it is not a number."""
    try:
        return int(float(row.get("year")))
    except (TypeError, ValueError):
        return None


def _year_agrees(year: int, ref, tolerance: int) -> bool:
    """An IMDb year within `tolerance` of the MovieLens year (none: never)."""
    return not pd.isna(ref) and abs(year - int(ref)) <= tolerance


def _claimed_titles(rows: list, ml_year: dict, tolerance: int) -> dict[int, list[str]]:
    """IMDb title number -> the movie ids whose rows name it; a row failing the year check names nothing."""
    claimed: dict[int, list[str]] = {}
    for row in rows:
        if (isinstance(row, dict) and str(row.get("movie_id")) in ml_year and imdb_number(row.get("movie_url"))
                and (year := _imdb_year(row)) is not None
                and _year_agrees(year, ml_year[str(row["movie_id"])], tolerance)):
            claimed.setdefault(imdb_number(row.get("movie_url")), []).append(str(row["movie_id"]))
    return claimed


def _shared_with_another_work(claimed: dict[int, list[str]], ml_year: dict, ml_title: dict,
                              min_similarity: float) -> dict[str, tuple[int, str]]:
    """movie id -> (IMDb number, the first other movie id naming it) for each id whose IMDb title a
    row of another work names too (two ids of one work, ML-100K's duplicates, may share one)."""
    def one_work(a: str, b: str) -> bool:
        return ml_year[a] == ml_year[b] and title_similarity(ml_title[a], ml_title[b]) >= min_similarity

    shared = {}
    for tt, mids in claimed.items():
        for m in mids:
            others = [o for o in mids if o != m and not one_work(m, o)]
            if others:
                shared[m] = (tt, others[0])
    return shared


def _kept_details(path, rows: list, ml_year: dict, ml_title: dict, tolerance: int, shared: dict,
                  guard: Guard) -> tuple[dict[str, dict], dict[str, int]]:
    """(movie id -> its details, the count of rows dropped per reason) over the file's rows in order."""
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
        year = _imdb_year(row)
        if year is None:
            dropped_no_year += 1
            continue
        if not _year_agrees(year, ml_year[mid], tolerance):
            dropped_year += 1
            continue
        if mid in shared:
            tt, other = shared[mid]
            guard.drop("imdb_id_shared_with_another_film", f"item {mid} {ml_title[mid]!r} and item {other} "
                                                           f"{ml_title[other]!r} both name tt{tt:07d}")
            continue
        kept[mid] = _details(row)
    return kept, {"dropped_year_mismatch": dropped_year, "dropped_year_not_numeric": dropped_no_year,
                  "dropped_unknown_item": dropped_unknown_id}


def _details(row: dict) -> dict:
    """The fields one kept row gives its item."""
    posters = row.get("poster_url") or []
    return {"director": list(row.get("director") or []), "cast": list(row.get("cast") or []),
            "plot": row.get("description") or None,
            # The largest of the three renditions, for captioning.
            "poster_url": posters[-1] if posters else None,
            "imdb_id": f"tt{imdb_number(row.get('movie_url')):07d}" if imdb_number(row.get("movie_url")) else None}


def _filled(items: pd.DataFrame, kept: dict[str, dict]) -> pd.DataFrame:
    """The items with each kept row's fields filled in where an item has none."""
    out = items.copy()
    if "imdb_id" not in out:
        out["imdb_id"] = None
    for col in FIELDS:
        out[col] = [fill(cur, kept[i][col]) if i in kept else cur
                    for i, cur in zip(out["item_id"].astype(str), out[col])]
    return out
