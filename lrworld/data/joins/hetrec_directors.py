"""HetRec 2011 MovieLens-2k `movie_directors.dat` (movieID, directorID, directorName; the ML-10M id
space, which ML-25M and ml-latest share; about 10k movies, so ML-25M's newer films get none).

A movie id alone is not enough (553 of 6,597 directors joined on ml-latest-small were
another film's, "The Terminator (1984)" -> McG): the join reads HetRec's `movies.dat` too and keeps a
movie's directors only when HetRec's row is the item's work (`guard.Guard`): its IMDb id equals the
item's from links.csv where both have one, else its title and year agree.
"""

from __future__ import annotations

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.joins import YEAR_TOLERANCE, fill, register
from lrworld.data.joins.guard import Guard
from lrworld.data.tables import read_delimited


@register("hetrec_directors", keys=("hetrec_directors", "hetrec_movies"), formats=("ml-latest",),
          fields=("director",), options={"year_tolerance": YEAR_TOLERANCE},
          check="that the dataset uses MovieLens ids (ML-10M/ML-25M/ml-latest); HetRec covers movies up to 2008")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    (path,) = files["hetrec_directors"]
    (movies_path,) = files["hetrec_movies"]
    df = read_delimited(path, sep="\t", header=True, encoding="latin-1", dtypes={"movieID": "id"})
    if "directorName" not in df.columns:
        raise DataError(f"{path}: missing column 'directorName'; found {list(df.columns)}")
    movies = read_delimited(movies_path, sep="\t", header=True, encoding="latin-1", dtypes={"id": "id"})
    missing = [c for c in ("id", "title", "imdbID", "year") if c not in movies.columns]
    if missing:
        raise DataError(f"{movies_path}: missing column(s) {missing}; found {list(movies.columns)[:6]}")
    het = movies.set_index("id")[["title", "imdbID", "year"] + (["spanishTitle"] if "spanishTitle" in movies else [])]
    grouped = df.groupby("movieID")["directorName"].agg(lambda s: [x for x in s if isinstance(x, str)])
    guard = Guard(opts.get("year_tolerance", 1))
    out = items.copy()
    imdb = out["imdb_id"] if "imdb_id" in out.columns else [None] * len(out)
    kept = set()
    for i, t, y, im in zip(out["item_id"].astype(str), out["title"], out["year"], imdb):
        if i not in grouped.index:
            continue
        if i not in het.index:
            guard.drop("not_in_hetrec_movies", f"item {i} {t!r}")
            continue
        r = het.loc[i]
        if guard.same_work(i, t, y, im, r["title"], r["year"], r["imdbID"], r.get("spanishTitle")):
            kept.add(i)
    out["director"] = [fill(cur, grouped[i]) if i in kept else cur
                       for i, cur in zip(out["item_id"].astype(str), out["director"])]
    return out, {"source": str(path), "rows": len(df), "aligned": len(kept), **guard.report()}
