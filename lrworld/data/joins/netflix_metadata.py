"""A movie catalogue CSV aligned by normalised title + year: Kaggle's `netflix_titles.csv` (the
2021 streaming catalogue the paper names: title, release_year, director, cast, listed_in,
description, type) or any CSV with a title and a year column under the names below.

The Kaggle catalogue holds about 6,000 movies of 2021; it aligns to a few percent of the Prize's
17,770 (mostly pre-2006) movies, so the default `min_alignment` stops such a run: lower it on
purpose (config/paper.yaml does, with the rate it expects).
"""

from __future__ import annotations

import re

import pandas as pd

from lrworld.data.alignment import align_title_year
from lrworld.data.contract import DataError
from lrworld.data.joins import YEAR_TOLERANCE, fill, register
from lrworld.data.tables import read_delimited

ALIASES = {
    "title": ["title", "name", "movie_title"],
    "year": ["release_year", "year", "startYear"],
    "director": ["director", "directors"],
    "cast": ["cast", "actors", "stars"],
    "genres": ["listed_in", "genres", "genre"],
    "plot": ["description", "plot", "overview", "logline"],
    "poster_url": ["poster_url", "poster", "Poster", "poster_link", "Poster_Link"],
    "type": ["type"],
}
FIELDS = ("director", "cast", "genres", "plot", "poster_url")


def split_list(v) -> list[str]:
    if not isinstance(v, str):
        return []
    return [x.strip() for x in re.split(r"[,|]", v) if x.strip()]


@register("netflix_metadata", keys=("netflix_metadata",), formats=("netflix", "netflix-prize", "ml-latest"),
          fields=FIELDS, options={"year_tolerance": YEAR_TOLERANCE},
          check="that the catalogue covers these movies' titles and years (year_tolerance); Kaggle's 2021 "
                "catalogue covers few Netflix Prize movies")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    (path,) = files["netflix_metadata"]
    meta = read_delimited(path, sep=",", header=True)
    cols = {key: next(n for n in names if n in meta.columns) for key, names in ALIASES.items()
            if any(n in meta.columns for n in names)}
    if "title" not in cols or "year" not in cols:
        raise DataError(f"{path}: needs a title column ({ALIASES['title']}) and a year column "
                        f"({ALIASES['year']}); found {list(meta.columns)}")
    # Kaggle's file mixes TV shows in; the Prize's titles are matched to movies first.
    tv = meta[cols["type"]].fillna("").str.lower().str.contains("tv").tolist() if "type" in cols else None
    match, counts = align_title_year(items, meta[cols["title"]].tolist(), meta[cols["year"]].tolist(),
                                     opts["year_tolerance"], tv)
    rows = meta.to_dict("records")

    def value(item_id: str, field: str):
        if item_id not in match or field not in cols:
            return None
        v = rows[match[item_id]].get(cols[field])
        if field in ("director", "cast", "genres"):
            return split_list(v)
        return v if isinstance(v, str) and v.strip() else None

    out = items.copy()
    ids = out["item_id"].astype(str)
    for field in FIELDS:
        out[field] = [fill(cur, value(i, field)) for i, cur in zip(ids, out[field])]
    report = {"source": str(path), "metadata_rows": int(len(meta)), "aligned": len(match), **counts,
              "year_tolerance": opts["year_tolerance"], "columns_used": cols}
    if inter is not None and len(inter):
        report["ratings_alignment_rate"] = round(float(inter["item_id"].astype(str).isin(set(match)).mean()), 4)
    return out, report
