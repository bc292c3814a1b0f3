"""One id per work: items that are the same work are merged to one id at ingest.

ML-100K lists 18 films under two ids ("Fly Away Home (1996)" is 304 and 500): a question could ask
which film is most similar to one id and count the other as the gold, or offer as a negative a film
the user rated under the other id. External ids come first (`EXTERNAL_IDS`: links.csv's imdbId and
tmdbId, an IMDb id from the metadata, an ASIN): items sharing one are one work unless another
external id both have differs, and two items with different values of any one are never merged,
whatever their titles (Emma 1996 is tt0116191 and tt0118308; two Confessions of a Dangerous Mind
share a TMDb id, not an IMDb id). docs/datasets.md states this rule.
Title + year merges only the rest: titles that read the same after normalisation
(`display.display_key`: case, punctuation, spacing) with equal years, never a title the loader
flagged as damaged (`title_damaged`: a spreadsheet turned "September 11" and "9/11" into 11-Sep) and
never a group holding two external ids; items without a year (products, artists) are never merged
by title. The report lists every merged group with its basis and every group kept apart. A group keeps its smallest id (numeric-aware),
takes each field from the first member that has a value, and lists every member in `original_ids`;
interactions are re-pointed to it, and where one user met several members only the earliest
interaction is kept (one user, one film, one event).
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from lrworld.data.joins import fill
from lrworld.data.joins.guard import imdb_number
from lrworld.core.display import display_key

# Ids a source gives the work itself: two items with different ones are two works, whatever
# their titles read; one shared id makes them one.
EXTERNAL_IDS = ("imdb_id", "tmdb_id", "asin")


def _y(v) -> str:
    return "?" if v is None or pd.isna(v) else str(int(v))


def _order(ids: pd.Series) -> list:
    """Numeric-aware id order, as the interaction contract sorts items."""
    num = pd.to_numeric(ids, errors="coerce")
    return sorted(range(len(ids)), key=lambda k: (num.iat[k] != num.iat[k], num.iat[k] if num.iat[k] == num.iat[k]
                                                   else 0, str(ids.iat[k])))


def _external(v, col: str):
    """One comparable external id, or None ('tt0116191', '116191' and 116191.0 are one IMDb id)."""
    if v is None or (isinstance(v, float) and v != v) or str(v).strip() in ("", "nan", "None", "<NA>"):
        return None
    if col == "imdb_id":
        return imdb_number(v)
    try:
        return int(float(v))
    except (TypeError, ValueError):
        return str(v).strip()


def _ids_of(items: pd.DataFrame) -> list[dict]:
    cols = [c for c in EXTERNAL_IDS if c in items.columns]
    if not cols:
        return [{} for _ in range(len(items))]
    return [{c: x for c, v in zip(cols, row) if (x := _external(v, c)) is not None}
            for row in zip(*(items[c] for c in cols))]


def _conflict(a: dict, b: dict) -> bool:
    return any(k in b and b[k] != v for k, v in a.items())


class _Union:
    """Union-find over item rows; `basis` holds what first joined a group, under the root it had then."""

    def __init__(self, n: int):
        self.parent = list(range(n))
        self.basis: dict[int, str] = {}

    def find(self, k: int) -> int:
        parent = self.parent
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def join(self, k: int, j: int, basis: str) -> None:
        """k's group into j's; j's root keeps the first basis it got."""
        self.parent[self.find(k)] = self.find(j)
        self.basis.setdefault(self.find(j), basis)


def work_groups(items: pd.DataFrame, report: dict | None = None) -> list[list[str]]:
    """Groups (two or more ids, canonical first) of items that are one work. `report`, when given,
    gets every group's basis and what was kept apart."""
    report = {} if report is None else report
    ext = _ids_of(items)
    ids = items["item_id"].astype(str).tolist()
    union = _Union(len(items))
    _join_by_external_id(ext, union)
    kept_apart, damaged = [], 0
    if "year" in items and "title" in items:
        kept_apart, damaged = _join_by_title_year(items, ids, ext, union)
    out, how = _groups_in_id_order(ids, union)
    report.update({"basis": how, "kept_apart": kept_apart, "damaged_titles_not_merged": damaged})
    return out


def _join_by_external_id(ext: list[dict], union: _Union) -> None:
    """One external id, one work (whatever the titles), unless another external id both have differs."""
    first: dict[tuple, int] = {}
    for k, e in enumerate(ext):
        for c, v in e.items():
            j = first.setdefault((c, v), k)
            if j != k and not _conflict(ext[union.find(j)], e):
                union.join(k, j, c)


def _by_title_year(items: pd.DataFrame) -> tuple[dict[str, list[int]], int]:
    """(display key|year -> rows, titles flagged damaged): the rows a title + year may merge."""
    n = len(items)
    bad = items["title_damaged"].fillna(False).astype(bool).tolist() if "title_damaged" in items else [False] * n
    by_key: dict[str, list[int]] = {}
    damaged = 0
    for k, (t, y) in enumerate(zip(items["title"], items["year"])):
        if y is None or pd.isna(y) or not str(t).strip():
            continue
        if bad[k]:
            damaged += 1
            continue
        by_key.setdefault(f"{display_key(t)}|{int(y)}", []).append(k)
    return by_key, damaged


def _join_by_title_year(items: pd.DataFrame, ids: list[str], ext: list[dict], union: _Union) -> tuple[list[str], int]:
    """Title + year joins exact, undamaged titles, never across two external ids; returns (the
    groups kept apart, as report lines; titles not merged as damaged)."""
    by_key, damaged = _by_title_year(items)
    kept_apart = []
    for key, rows in by_key.items():
        if len(rows) < 2:
            continue
        if _two_external_ids(rows, ext):
            # two external ids (Emma 1996: tt0116191, tt0118308): two works of one title
            kept_apart.append(_kept_apart_line(items, ids, ext, key, rows))
            continue
        for r in rows[1:]:
            if union.find(r) != union.find(rows[0]):
                union.join(r, rows[0], "title_year")
    return kept_apart, damaged


def _two_external_ids(rows: list[int], ext: list[dict]) -> bool:
    """Whether the rows hold two values of one external id."""
    merged_ids: dict = {}
    for r in rows:
        for c, v in ext[r].items():
            merged_ids.setdefault(c, set()).add(v)
    return any(len(v) > 1 for v in merged_ids.values())


def _kept_apart_line(items: pd.DataFrame, ids: list[str], ext: list[dict], key: str, rows: list[int]) -> str:
    """'Title (year): id (its external ids) / id ...', ids in numeric-aware order."""
    rows = [rows[k] for k in _order(pd.Series([ids[r] for r in rows]))]
    return (f"{items['title'].iat[rows[0]]} ({key.rsplit('|', 1)[1]}): "
            + " / ".join(f"{ids[r]}" + (f" ({', '.join(f'{c} {v}' for c, v in ext[r].items())})"
                                        if ext[r] else "") for r in rows))


def _groups_in_id_order(ids: list[str], union: _Union) -> tuple[list[list[str]], dict[str, str]]:
    """(groups of two or more ids, each and all in numeric-aware id order; canonical id -> basis)."""
    groups: dict[int, list[int]] = {}
    for k in range(len(ids)):
        groups.setdefault(union.find(k), []).append(k)
    out, how = [], {}
    for root, rows in groups.items():
        if len(rows) > 1:
            gid = pd.Series([ids[r] for r in rows])
            g = [gid.iat[k] for k in _order(gid)]
            out.append(g)
            how[g[0]] = union.basis.get(root, "title_year")
    return [out[k] for k in _order(pd.Series([g[0] for g in out]))], how


def title_year_only(report: dict) -> list[str]:
    """The groups of a `merge_same_work` report merged on title + year alone (no external id)."""
    return [g for g in report.get("merged", []) if g.endswith(" by title_year")]


def merge_same_work(items: pd.DataFrame, inter: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(items, interactions, report): every group of one work merged to its canonical id."""
    why: dict = {}
    groups = work_groups(items, why)
    out = items.copy()
    out["original_ids"] = [[str(i)] for i in out["item_id"]]
    apart = {"kept_apart_external_ids_differ": why["kept_apart"],
             "damaged_titles_not_merged": why["damaged_titles_not_merged"]}
    if not groups:
        return out, inter, {"groups": 0, "items_merged": 0, "interactions_repointed": 0,
                            "interactions_dropped_same_user": 0, "examples": [], "merged": [], "by": {}, **apart}
    to = {m: g[0] for g in groups for m in g[1:]}
    by_id = out.set_index(out["item_id"].astype(str), drop=False)
    fields = [c for c in out.columns if c not in ("item_id", "original_ids")]
    for g in groups:
        row = by_id.loc[g[0]].copy()
        for m in g[1:]:
            other = by_id.loc[m]
            for c in fields:
                row[c] = fill(row[c], other[c])
        row["original_ids"] = list(g)
        by_id.loc[g[0]] = row
    merged = by_id[~by_id.index.isin(list(to))].reset_index(drop=True)
    ids = inter["item_id"].astype(str)
    moved = ids.isin(list(to))
    new = inter.assign(item_id=ids.map(lambda i: to.get(i, i)))
    canon = set(g[0] for g in groups)
    # one user who met two ids of one work: keep the earliest event
    touched = new["item_id"].isin(canon)
    first = new[touched].sort_values(["timestamp"], kind="mergesort").drop_duplicates(["user_id", "item_id"])
    keep = ~touched | new.index.isin(first.index)
    title = dict(zip(merged["item_id"].astype(str), merged["title"]))
    year = dict(zip(merged["item_id"].astype(str), merged["year"]))
    report = {"groups": len(groups), "items_merged": int(sum(len(g) - 1 for g in groups)),
              "interactions_repointed": int(moved.sum()), "interactions_dropped_same_user": int((~keep).sum()),
              "examples": [f"{title[g[0]]} ({_y(year[g[0]])}): {' + '.join(g)} -> {g[0]}" for g in groups[:5]],
              # every group, with what made it one work
              "merged": [f"{title[g[0]]} ({_y(year[g[0]])}): {' + '.join(g)} -> {g[0]} by {why['basis'][g[0]]}"
                         for g in groups],
              "by": dict(sorted(Counter(why["basis"].values()).items())), **apart}
    return merged, new[keep].reset_index(drop=True), report
