"""HetRec 2011 MovieLens-2k `movie_directors.dat` (movieID, directorID, directorName; the ML-10M id
space, which ML-25M and ml-latest share; about 10k movies, so ML-25M's newer films get none).

A movie id alone is not enough (553 of 6,597 directors joined on ml-latest-small were
another film's, "The Terminator (1984)" -> McG): the join reads HetRec's `movies.dat` too and keeps a
movie's directors only when HetRec's row is the item's work (`guard.Guard`): its IMDb id equals the
item's from links.csv where both have one, else its title and year agree.

ML-100K has its own movie ids: there HetRec's row is the one with the item's IMDb id (given by the
IMDb details join, which runs first), else the one with its title and year, and its title must
still read like the item's (or hold it: "Life of Brian" in "Monty Python's Life of Brian"). An
IMDb id that HetRec knows under another title ("The Mighty" -> tt0120751, HetRec's "Mighty Joe
Young") may be another film's: the two sources then read one IMDb page and cannot witness each
other, so the id's row is not trusted (`other_work`: ingest drops every fact it gave). HetRec's
original-language titles ("Átame!" for "Tie Me Up! Tie Me Down!") fall under this too: a film lost
rather than a logline of another film shown.
"""

from __future__ import annotations

import re

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.formats import FORMATS
from lrworld.data.joins import YEAR_TOLERANCE, fill, register
from lrworld.data.alignment import align_title_year
from lrworld.data.joins.guard import Guard, imdb_number, title_key
from lrworld.data.tables import read_delimited


def _contains(a, b) -> bool:
    """One title inside the other, at least two words long without its article ('Life of Brian' in
    "Monty Python's Life of Brian"; not 'Mighty' in 'Mighty Joe Young')."""
    ka, kb = (re.sub(r"^(the|a|an) ", "", title_key(x)) for x in (a, b))
    short, long = sorted((ka, kb), key=len)
    return len(short.split()) >= 2 and f" {short} " in f" {long} "


@register("hetrec_directors", keys=("hetrec_directors", "hetrec_movies"), formats=("ml-latest", "ml-100k"),
          fields=("director",), options={"year_tolerance": YEAR_TOLERANCE},
          check="that the dataset uses MovieLens ids (ML-10M/ML-25M/ml-latest), or for ML-100K IMDb ids (the "
                "imdb_details join) or titles and years HetRec shares; HetRec covers movies up to 2008")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    (path,) = files["hetrec_directors"]
    (movies_path,) = files["hetrec_movies"]
    df = _read_directors(path)
    het = _read_movies(movies_path)
    grouped = df.groupby("movieID")["directorName"].agg(lambda s: [x for x in s if isinstance(x, str)])
    guard = Guard(opts.get("year_tolerance", 1))
    out = items.copy()
    imdb = out["imdb_id"] if "imdb_id" in out.columns else [None] * len(out)
    if opts.get("format") in FORMATS and FORMATS.get(opts["format"]).item_ids != "movielens":
        kept, other_work = _aligned_by_imdb_or_title(out, imdb, het, grouped, guard, opts.get("year_tolerance", 1))
    else:
        kept, other_work = _aligned_by_movie_id(out, imdb, het, grouped, guard), []
    out["director"] = [fill(cur, grouped[kept[i]]) if i in kept else cur
                       for i, cur in zip(out["item_id"].astype(str), out["director"])]
    return out, {"source": str(path), "rows": len(df), "aligned": len(kept), **guard.report(),
                 "other_work": other_work}


def _read_directors(path) -> pd.DataFrame:
    df = read_delimited(path, sep="\t", header=True, encoding="latin-1", dtypes={"movieID": "id"})
    if "directorName" not in df.columns:
        raise DataError(f"{path}: missing column 'directorName'; found {list(df.columns)}")
    return df


def _read_movies(movies_path) -> pd.DataFrame:
    """HetRec's movies by id: title, IMDb id, year (and the Spanish title where the file has one)."""
    movies = read_delimited(movies_path, sep="\t", header=True, encoding="latin-1", dtypes={"id": "id"})
    missing = [c for c in ("id", "title", "imdbID", "year") if c not in movies.columns]
    if missing:
        raise DataError(f"{movies_path}: missing column(s) {missing}; found {list(movies.columns)[:6]}")
    return movies.set_index("id")[["title", "imdbID", "year"] + (["spanishTitle"] if "spanishTitle" in movies else [])]


def _aligned_by_movie_id(out: pd.DataFrame, imdb, het: pd.DataFrame, grouped: pd.Series, guard: Guard) -> dict:
    """item id -> HetRec movie id for a dataset in HetRec's id space: the same id, when the guard
    finds HetRec's row to be the item's work."""
    kept = {}
    for i, t, y, im in zip(out["item_id"].astype(str), out["title"], out["year"], imdb):
        if i not in grouped.index:
            continue
        if i not in het.index:
            guard.drop("not_in_hetrec_movies", f"item {i} {t!r}")
            continue
        r = het.loc[i]
        if guard.same_work(i, t, y, im, r["title"], r["year"], r["imdbID"], r.get("spanishTitle")):
            kept[i] = i
    return kept


def _aligned_by_imdb_or_title(out: pd.DataFrame, imdb, het: pd.DataFrame, grouped: pd.Series, guard: Guard,
                              tolerance: int) -> tuple[dict, list]:
    """(item id -> HetRec movie id, the IMDb ids HetRec titles as another film) for a format that
    numbers its films its own way (ML-100K): HetRec's row is found by the item's IMDb id (from the
    IMDb details), else by its title and year."""
    by_imdb = {imdb_number(v): k for k, v in zip(het.index, het["imdbID"]) if imdb_number(v) is not None}
    by_title, _ = align_title_year(out, het["title"].tolist(), het["year"].tolist(), tolerance)

    def by_title_of(i):
        return het.index[by_title[i]] if i in by_title else None

    kept, other_work = {}, []
    for i, t, y, im in zip(out["item_id"].astype(str), out["title"], out["year"], imdb):
        n = imdb_number(im)
        hid = by_imdb.get(n) if n is not None else by_title_of(i)
        if hid is None or hid not in grouped.index:
            continue
        r = het.loc[hid]
        # the id is the other source's: HetRec's title and year must still be the item's
        if not (guard.same_work(i, t, y, None, r["title"], r["year"], None, r.get("spanishTitle"))
                or n is not None and _contains(t, r["title"])):
            if n is None:
                continue
            other_work.append((i, n, f"item {i} {t!r} ({y}): tt{n:07d} is HetRec's {r['title']!r} "
                                     f"({r['year']})"))
            # the film itself may still be in HetRec under its title
            hid = by_title_of(i)
            if hid is None or hid not in grouped.index:
                continue
        kept[i] = hid
    return kept, other_work
