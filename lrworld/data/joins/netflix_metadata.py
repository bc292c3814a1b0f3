"""A movie catalogue CSV aligned by normalised title + year: Kaggle's `netflix_titles.csv` (the
2021 streaming catalogue the paper names: title, release_year, director, cast, listed_in,
description, type) or any CSV with a title and a year column under the names below.

The Kaggle catalogue holds about 6,000 movies of 2021; it aligns to a few percent of the Prize's
17,770 (mostly pre-2006) movies, so the default `min_alignment` stops such a run: lower it on
purpose (config/paper.yaml does, with the rate it expects).

Same-work guard (at the paper config's floor "The Company" (2003) matched "Company"
(2002), and 12 movies matched TV rows): only film rows are candidates (a `type` naming TV is
never one), titles must be equal after normalisation *with* their leading article, and the year
exact (`metadata.year_tolerance` is not read by this join). What the loose match (any row, articles dropped, a year
off by one) would have aligned and the guard does not is counted per reason, with examples.
"""

from __future__ import annotations

import re

import pandas as pd

from lrworld.data.alignment import align_title_year, norm_title
from lrworld.data.contract import DataError
from lrworld.data.joins import fill, register
from lrworld.data.joins.guard import Guard
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
          fields=FIELDS,
          check="that the catalogue covers these movies' titles and exact years (films only); Kaggle's 2021 "
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
    titles, years = meta[cols["title"]].tolist(), meta[cols["year"]].tolist()
    films = [None if tv and tv[i] else t for i, t in enumerate(titles)]  # a TV row is never a candidate
    match, counts = align_title_year(items, films, years, 0, keep_articles=True)
    loose, _ = align_title_year(items, titles, years, 1, tv)
    guard = Guard(0)
    by_id = {str(i): (t, y) for i, t, y in zip(items["item_id"], items["title"], items["year"])}
    for item_id, row in loose.items():
        if item_id in match:
            continue
        t, y = by_id[item_id]
        what = f"item {item_id} {t!r} ({y}) vs {titles[row]!r} ({years[row]})"
        reason = ("tv_row" if tv and tv[row] else
                  "title_differs" if norm_title(t, True) != norm_title(titles[row], True) else "year_differs")
        guard.drop(reason, what)
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
              "columns_used": cols, **guard.report()}
    report.pop("min_title_similarity")
    if inter is not None and len(inter):
        report["ratings_alignment_rate"] = round(float(inter["item_id"].astype(str).isin(set(match)).mean()), 4)
    return out, report
