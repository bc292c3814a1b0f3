"""IMDb's non-commercial datasets (`lrworld.data.imdb_datasets`) joined by IMDb id: directors
(title.crew, named by name.basics) and cast (title.principals' actors, actresses and self credits,
in billing order) of every item whose IMDb id the dataset or an earlier join gives (ml-latest /
ml-25m: links.csv; ML-100K: the IMDb details' ids). Netflix has no IMDb id: an item is the one IMDb
film (movie, TV movie or video) whose primary, original or aka title reads as the item's and whose
year is within the tolerance (two or more: `title_year_ambiguous`, no join).

The row is kept only when it is the item's film: one of the titles IMDb gives it (primary,
original, or any of title.akas) reads like the item's title, and the years agree within the
tolerance. Otherwise the item's IMDb id names another film ("The Mighty" carries Mighty Joe Young's
id): every fact given under that id is dropped (`other_work`), whichever joins are configured. A
row kept through one of its akas (an original-language title) confirms the id (`same_work`), so
another join's doubt about the id, HetRec's title being the Spanish one, does not drop the film.
"""

from __future__ import annotations

import pandas as pd

from lrworld.data.imdb_datasets import match_titles, read_names, read_titles, tconst
from lrworld.data.joins import YEAR_TOLERANCE, register
from lrworld.data.joins.guard import Guard, imdb_number, title_key, title_similarity, title_variants

FILES = {"imdb_basics": "title.basics", "imdb_crew": "title.crew", "imdb_names": "name.basics",
         "imdb_principals": "title.principals", "imdb_akas": "title.akas"}
REASON = "imdb_id_titled_otherwise_in_imdb"
TITLE_YEAR_FORMATS = ("netflix", "netflix-prize")


def _year(v) -> int | None:
    try:
        return None if v is None or pd.isna(v) else int(float(v))
    except (TypeError, ValueError):
        return None


def _by_title_year(items: pd.DataFrame, wanted: dict, paths: dict, guard: Guard) -> dict[str, str]:
    """item -> tconst of the items without an IMDb id (Netflix) whose title and year name exactly one
    IMDb film, by its primary, original or aka titles; two or more is `title_year_ambiguous`."""
    rest = {i: (title_variants(t), _year(y)) for i, t, y in zip(items["item_id"].astype(str), items["title"],
                                                               items["year"]) if i not in wanted and _year(y)}
    if not rest:
        return {}
    found = match_titles(paths, rest, guard.year_tolerance, title_key)
    out = {}
    for i, tcs in found.items():
        if len(tcs) == 1:
            out[i] = next(iter(tcs))
        else:
            guard.drop("title_year_ambiguous", f"item {i}: {len(tcs)} IMDb films ({', '.join(sorted(tcs)[:3])})")
    return out


@register("imdb_datasets", keys=("imdb_basics", "imdb_crew", "imdb_names"),
          optional_keys=("imdb_principals", "imdb_akas"), formats=("ml-latest", "ml-100k", "netflix", "netflix-prize"),
          order=8,
          fields=("director", "cast"), options={"year_tolerance": YEAR_TOLERANCE},
          check="that the items have IMDb ids (links.csv, or the imdb_details join for ML-100K) and the "
                "files are IMDb's title.basics / title.crew / name.basics")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    paths = {FILES[k]: v[0] for k, v in files.items()}
    imdb = items["imdb_id"] if "imdb_id" in items.columns else [None] * len(items)
    wanted = {i: tconst(n) for i, v in zip(items["item_id"].astype(str), imdb) if (n := imdb_number(v)) is not None}
    guard = Guard(opts.get("year_tolerance", 1))
    # Netflix gives no IMDb id: its titles and years find the film
    by_title = _by_title_year(items, wanted, paths, guard) if opts.get("format") in TITLE_YEAR_FORMATS else {}
    wanted.update(by_title)
    titles = read_titles(paths, set(wanted.values()))
    kept, other_work, same_work = {}, [], []
    for i, t, y in zip(items["item_id"].astype(str), items["title"], items["year"]):
        row = titles.get(wanted.get(i))
        if row is None:
            continue
        sim = max((title_similarity(t, x) for x in row.titles()), default=0.0)
        ry, my = row.year, _year(y)
        n = imdb_number(row.tconst)
        if sim < guard.min_similarity or (ry is not None and my is not None and abs(ry - my) > guard.year_tolerance):
            why = f"item {i} {t!r} ({my}): {row.tconst} is IMDb's {row.primary!r} ({ry})"
            guard.drop("title_differs" if sim < guard.min_similarity else "year_differs", why)
            other_work.append((i, n, why, REASON))
            continue
        kept[i] = row
        if i not in by_title:  # an id the title + year match found confirms nothing
            same_work.append((i, n))
    wanted_people = {p for r in kept.values() for p in r.directors + r.cast}
    names = read_names(paths["name.basics"], wanted_people)
    out = items.copy()
    out["director"] = [[names[p] for p in kept[i].directors if p in names] if i in kept else cur
                       for i, cur in zip(out["item_id"].astype(str), out["director"])]
    out["cast"] = [[names[p] for p in kept[i].cast if p in names] if i in kept else cur
                   for i, cur in zip(out["item_id"].astype(str), out["cast"])]
    # each film's people by id: another source's spelling of one of them is that person
    people = {i: {"director": {p: names[p] for p in r.directors if p in names},
                  "cast": {p: names[p] for p in r.cast if p in names}} for i, r in kept.items()}
    return out, {"files": sorted(paths), "titles_found": len(titles), "aligned": len(kept),
                 "matched_by_title_year": len(by_title), **guard.report(),
                 "other_work": other_work, "same_work": same_work, "people": people}
