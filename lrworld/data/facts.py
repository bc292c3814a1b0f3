"""Every knowledge fact with its witnesses: which source gave each value of an item's field, and
whether the sources that cover the same film agree.

A single source is taken on trust only where no second one exists: HetRec's `movie_directors.dat`
names "Philip Jackson" for Blade Runner with the right IMDb id, so no id guard can see the error;
only a second source (the IMDb details) can. Ingest records each source's values per (item, field)
here (the dataset's own files under the format's name, each metadata join under its own), then
`reconcile` decides each item's value:

- names (`NAME_FIELDS`: director, cast) are compared across sources after `name_key` (job-title
  prefixes such as "Director ", IMDb's "(I)" / " I" disambiguators, accents, case, punctuation and
  spacing; two keys within `SPELLING_RATIO` read as one spelling). Where two or more sources cover
  a film, with `require_agreement` only the values every covering source gives are kept; a film
  whose sources share none loses the field (reason `sources_disagree`, with the names each source
  gave). Without it the first source's values are kept, as single-source facts;
- every other field (genres, plot, poster, brand, ...) has no comparable second source (taxonomies
  and loglines differ by design): the first source with a value gives it, `witnesses: 1`;
- a source whose row is another film (`forget`: its IMDb id names a film of another title) gives
  nothing for that item, not even a logline a distractor could show.

The table (`facts.parquet`) has one row per (item, field, value) with its sources and witnesses;
the items keep `<field>_sources` (the sources backing the value) for every field, and per name
field `<field>_witnesses`, `<field>_other` (names a covering source gave that are not kept, never a
distractor of that item) and `<field>_dropped` (why the item lost the field).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pandas as pd

from lrworld.core.cells import is_listlike, strings
from lrworld.core.names import NAME_FIELDS, clean_name, name_key, same_name
from lrworld.data.contract import LIST_COLUMNS
from lrworld.data.joins.guard import imdb_number

EXAMPLES = 5


def _has(v) -> bool:
    if is_listlike(v):
        return len(v) > 0
    return v is not None and v == v and v != ""


class Facts:
    """Values per field, source and item, in the order the sources were recorded (their precedence)."""

    def __init__(self):
        self.values: dict[str, dict[str, dict[str, object]]] = {}  # field -> source -> item -> value
        self.forgotten: Counter = Counter()
        self.forgotten_examples: dict[str, list[str]] = {}
        self._gone: set[tuple[str, str]] = set()
        self.fallback: set[str] = set()

    def record(self, source: str, items: pd.DataFrame, fields, witness: bool = True) -> None:
        if not witness:
            self.fallback.add(source)
        for f in fields:
            if f not in items.columns:
                continue
            got = {str(i): v for i, v in zip(items["item_id"], items[f]) if _has(v)}
            if got:
                self.values.setdefault(f, {}).setdefault(source, {}).update(got)

    def forget(self, item: str, imdb: int, reason: str, example: str) -> None:
        """Every source that named IMDb id `imdb` for `item` described another film there."""
        for source, got in self.values.get("imdb_id", {}).items():
            if imdb_number(got.get(str(item))) == imdb and (str(item), source) not in self._gone:
                self._gone.add((str(item), source))
                self.forgotten[f"{source}: {reason}"] += 1
                ex = self.forgotten_examples.setdefault(f"{source}: {reason}", [])
                if len(ex) < EXAMPLES:
                    ex.append(example)

    def sources(self, field: str) -> dict[str, dict[str, object]]:
        return {s: {i: v for i, v in got.items() if (i, s) not in self._gone}
                for s, got in self.values.get(field, {}).items()}


def _names(v) -> list[str]:
    return list(dict.fromkeys(c for x in strings(v) if (c := clean_name(x))))


def _agreed(lists: dict[str, list[str]]) -> tuple[list[str], bool]:
    """(values of the first source every other source also gives, whether only by spelling)."""
    first, *rest = lists.values()
    kept, fuzzy = [], False
    for x in first:
        if all(any(same_name(x, o) for o in other) for other in rest):
            kept.append(x)
            fuzzy |= any(name_key(x) not in {name_key(o) for o in other} for other in rest)
    return kept, fuzzy


def reconcile(items: pd.DataFrame, facts: Facts, require_agreement: bool = True) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(items with each recorded field decided from its witnesses, the facts table, the report)."""
    out = items.copy()
    ids = out["item_id"].astype(str).tolist()
    title = dict(zip(ids, out["title"]))
    rows, report = [], {"require_agreement": bool(require_agreement), "fields": {}}
    # imdb_id too: a row of another film leaves no id behind (the merge reads it)
    for field in list(facts.values):
        by_source = facts.sources(field)
        order = list(by_source)
        names = field in NAME_FIELDS
        values, witnesses, backers, other, dropped = {}, {}, {}, {}, {}
        pair = {p: Counter() for p in combinations(order, 2)} if names else {}
        reasons, examples, fuzzy_n = Counter(), {}, 0
        for i in ids:
            got = {s: by_source[s][i] for s in order if i in by_source[s]}
            if not got:
                continue
            if not names:
                s = next(iter(got))
                values[i], witnesses[i], backers[i] = got[s], 1, [s]
                # first_source: others cover the item too, in vocabularies not compared (genres, loglines)
                status = "single_source" if len(got) == 1 else "first_source"
                rows.extend((i, field, x, [s], 1, status) for x in (strings(got[s]) or [got[s]]))
                continue
            lists = {s: _names(v) for s, v in got.items()}
            lists = {s: v for s, v in lists.items() if v}
            if any(s not in facts.fallback for s in lists):
                lists = {s: v for s, v in lists.items() if s not in facts.fallback}
            else:
                lists = dict(list(lists.items())[:1])
            if not lists:
                continue
            for a, b in combinations(lists, 2):
                c = pair[(a, b)] if (a, b) in pair else pair[(b, a)]
                c["both"] += 1
                c["agree"] += bool(_agreed({a: lists[a], b: lists[b]})[0])
            first = next(iter(lists))
            if len(lists) == 1:
                values[i], witnesses[i], backers[i] = lists[first], 1, [first]
                rows.extend((i, field, x, [first], 1, "single_source") for x in lists[first])
                continue
            kept, fuzzy = _agreed(lists)
            rest = [x for v in lists.values() for x in v if not any(same_name(x, k) for k in kept)]
            other[i] = list(dict.fromkeys(rest))
            if kept:
                fuzzy_n += fuzzy
                values[i], witnesses[i], backers[i] = kept, len(lists), list(lists)
                rows.extend((i, field, x, list(lists), len(lists), "agreed") for x in kept)
                rows.extend((i, field, x, [s for s, v in lists.items() if x in v], 1, "not_agreed")
                            for x in other[i])
                continue
            detail = "; ".join(f"{s}: {', '.join(v[:3])}" for s, v in lists.items())
            reasons["sources_disagree"] += 1
            # every one listed: these are the films a measure loses
            examples.setdefault("sources_disagree", []).append(f"item {i} {title.get(i)!r}: {detail}")
            if require_agreement:
                dropped[i] = f"sources_disagree: {detail}"
            else:
                # the policy keeps the first source's names; the others' stay out of the distractors
                values[i], witnesses[i], backers[i] = lists[first], 1, [first]
                rows.extend((i, field, x, [first], 1, "first_source") for x in lists[first])
                other[i] = [x for x in other[i] if x not in lists[first]]
            rows.extend((i, field, x, [s for s, v in lists.items() if x in v], 1, "disagreed") for x in other[i])
        empty = [] if names or field in LIST_COLUMNS else None
        out[field] = [values.get(i, empty) for i in ids]
        if field != "imdb_id":
            out[f"{field}_sources"] = [backers.get(i, []) for i in ids]
        if names:
            out[f"{field}_witnesses"] = [int(witnesses.get(i, 0)) for i in ids]
            out[f"{field}_other"] = [other.get(i, []) for i in ids]
            out[f"{field}_dropped"] = [dropped.get(i) for i in ids]
        w = Counter(witnesses.values())
        rep = {"sources": order, "items": len(values), "witnesses": {str(k): w[k] for k in sorted(w)}}
        if names:
            rep.update({
                "agreement": {f"{a}|{b}": {"both": c["both"], "agree": c["agree"],
                                           "rate": round(c["agree"] / c["both"], 4) if c["both"] else None}
                              for (a, b), c in pair.items()},
                "agreed_by_spelling": fuzzy_n, "disagreed": dict(reasons),
                "dropped": len(dropped), "dropped_films": examples})
        report["fields"][field] = rep
    if facts.forgotten:
        report["rows_of_another_film"] = dict(sorted(facts.forgotten.items()))
        report["rows_of_another_film_examples"] = facts.forgotten_examples
    table = pd.DataFrame(rows, columns=["item_id", "field", "value", "sources", "witnesses", "status"])
    table["value"] = table["value"].astype(str)
    return out, table.sort_values(["item_id", "field"], kind="mergesort").reset_index(drop=True), report
