"""One id per work: items that are the same work are merged to one id at ingest.

ML-100K lists 18 films under two ids ("Fly Away Home (1996)" is 304 and 500): a question could ask
which film is most similar to one id and count the other as the gold, or offer as a negative a film
the user rated under the other id. Two items are one work when their titles read the same after
normalisation (`display.display_key`: case, punctuation, spacing) and their years are equal; items
without a year (products, artists) are never merged. A group keeps its smallest id (numeric-aware),
takes each field from the first member that has a value, and lists every member in `original_ids`;
interactions are re-pointed to it, and where one user met several members only the earliest
interaction is kept (one user, one film, one event).
"""

from __future__ import annotations

import pandas as pd

from lrworld.data.joins import fill
from lrworld.core.display import display_key


def _order(ids: pd.Series) -> list:
    """Numeric-aware id order, as the interaction contract sorts items."""
    num = pd.to_numeric(ids, errors="coerce")
    return sorted(range(len(ids)), key=lambda k: (num.iat[k] != num.iat[k], num.iat[k] if num.iat[k] == num.iat[k]
                                                   else 0, str(ids.iat[k])))


def work_groups(items: pd.DataFrame) -> list[list[str]]:
    """Groups (two or more ids, canonical first) of items that are one work."""
    if "year" not in items or "title" not in items:
        return []
    has_year = items["year"].notna() & items["title"].astype(str).str.strip().ne("")
    sub = items[has_year]
    keys = [f"{display_key(t)}|{int(y)}" for t, y in zip(sub["title"], sub["year"])]
    groups: dict[str, list[int]] = {}
    for row, k in enumerate(keys):
        groups.setdefault(k, []).append(row)
    out = []
    for rows in groups.values():
        if len(rows) > 1:
            ids = sub["item_id"].iloc[rows].astype(str).reset_index(drop=True)
            out.append([ids.iat[k] for k in _order(ids)])
    return [out[k] for k in _order(pd.Series([g[0] for g in out]))]


def merge_same_work(items: pd.DataFrame, inter: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(items, interactions, report): every group of one work merged to its canonical id."""
    groups = work_groups(items)
    out = items.copy()
    out["original_ids"] = [[str(i)] for i in out["item_id"]]
    if not groups:
        return out, inter, {"groups": 0, "items_merged": 0, "interactions_repointed": 0,
                            "interactions_dropped_same_user": 0, "examples": []}
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
              "examples": [f"{title[g[0]]} ({int(year[g[0]])}): {' + '.join(g)} -> {g[0]}" for g in groups[:5]]}
    return merged, new[keep].reset_index(drop=True), report
