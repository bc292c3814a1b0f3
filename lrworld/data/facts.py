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
from dataclasses import dataclass, field as dc_field
from itertools import combinations

import pandas as pd

from lrworld.core.cells import is_listlike, strings
from lrworld.core.names import NAME_FIELDS, clean_name, name_key, same_name
from lrworld.data.contract import LIST_COLUMNS
from lrworld.data.people import same_person
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
        # (item, field) -> {person id: name}: the film's people as a source that names them by id credits them
        self.credited: dict[tuple[str, str], dict[str, str]] = {}

    def credit(self, people: dict) -> None:
        """{item: {field: {person id: name}}} of a source that names people by id (IMDb's nconsts)."""
        for item, fields in people.items():
            for f, credited in fields.items():
                self.credited.setdefault((str(item), f), {}).update(credited)

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


def _agreed(lists: dict[str, list[str]], same=same_name) -> tuple[list[str], bool]:
    """(values of the first source every other source also gives, whether only by spelling); `same`
    tells two names of one person (`people.same_person` where a source names the film's people by id)."""
    first, *rest = lists.values()
    kept, fuzzy = [], False
    for x in first:
        if all(any(same(x, o) for o in other) for other in rest):
            kept.append(x)
            fuzzy |= any(name_key(x) not in {name_key(o) for o in other} for other in rest)
    return kept, fuzzy


@dataclass
class _Field:
    """What `reconcile` decided for one field, per item id."""
    values: dict = dc_field(default_factory=dict)
    witnesses: dict = dc_field(default_factory=dict)
    backers: dict = dc_field(default_factory=dict)
    other: dict = dc_field(default_factory=dict)
    dropped: dict = dc_field(default_factory=dict)
    rows: list = dc_field(default_factory=list)
    pair: dict = dc_field(default_factory=dict)
    reasons: Counter = dc_field(default_factory=Counter)
    examples: dict = dc_field(default_factory=dict)
    fuzzy: int = 0

    def keep(self, i: str, field: str, names: list, sources: list, status: str) -> None:
        """`names` are item i's value, backed by `sources` (all witnesses when more than one)."""
        n = len(sources)
        self.values[i], self.witnesses[i], self.backers[i] = names, n, list(sources)
        self.rows.extend((i, field, x, list(sources), n, status) for x in names)


def _first_value(res: _Field, i: str, field: str, got: dict) -> None:
    """A field no second source is compared on: the first source with a value gives it."""
    s = next(iter(got))
    # first_source: others cover the item too, in vocabularies not compared (genres, loglines)
    status = "single_source" if len(got) == 1 else "first_source"
    res.values[i], res.witnesses[i], res.backers[i] = got[s], 1, [s]
    res.rows.extend((i, field, x, [s], 1, status) for x in (strings(got[s]) or [got[s]]))


def _witnessing(got: dict, fallback: set) -> dict[str, list[str]]:
    """Each source's cleaned names; a fallback source (not curated) only where no other gives any."""
    lists = {s: v for s, v in ((s, _names(v)) for s, v in got.items()) if v}
    if any(s not in fallback for s in lists):
        return {s: v for s, v in lists.items() if s not in fallback}
    return dict(list(lists.items())[:1])


def _count_pairs(res: _Field, lists: dict[str, list[str]], same=same_name) -> None:
    """How often each pair of sources covers a film, and agrees on it."""
    for a, b in combinations(lists, 2):
        c = res.pair[(a, b)] if (a, b) in res.pair else res.pair[(b, a)]
        c["both"] += 1
        c["agree"] += bool(_agreed({a: lists[a], b: lists[b]}, same)[0])


def _name_value(res: _Field, i: str, field: str, got: dict, fallback: set, title: str | None,
                require_agreement: bool, credited: dict | None = None) -> None:
    """Names of item i: those every covering source gives, or the field dropped (or the first
    source's names without `require_agreement`) when they share none. `credited`: the film's people
    by id, where a source names them so (two spellings of one person then agree)."""
    lists = _witnessing(got, fallback)
    if not lists:
        return
    same = same_person(credited or {})
    _count_pairs(res, lists, same)
    first = next(iter(lists))
    if len(lists) == 1:
        res.keep(i, field, lists[first], [first], "single_source")
        return
    kept, fuzzy = _agreed(lists, same)
    rest = [x for v in lists.values() for x in v if not any(same(x, k) for k in kept)]
    res.other[i] = list(dict.fromkeys(rest))
    if kept:
        res.fuzzy += fuzzy
        res.keep(i, field, kept, list(lists), "agreed")
        res.rows.extend((i, field, x, [s for s, v in lists.items() if x in v], 1, "not_agreed")
                        for x in res.other[i])
        return
    detail = "; ".join(f"{s}: {', '.join(v[:3])}" for s, v in lists.items())
    res.reasons["sources_disagree"] += 1
    # every one listed: these are the films a measure loses
    res.examples.setdefault("sources_disagree", []).append(f"item {i} {title!r}: {detail}")
    if require_agreement:
        res.dropped[i] = f"sources_disagree: {detail}"
    else:
        # the policy keeps the first source's names; the others' stay out of the distractors
        res.keep(i, field, lists[first], [first], "first_source")
        res.other[i] = [x for x in res.other[i] if x not in lists[first]]
    res.rows.extend((i, field, x, [s for s, v in lists.items() if x in v], 1, "disagreed") for x in res.other[i])


def _decide(field: str, facts: Facts, ids: list[str], title: dict, require_agreement: bool) -> _Field:
    by_source = facts.sources(field)
    order = list(by_source)
    names = field in NAME_FIELDS
    res = _Field(pair={p: Counter() for p in combinations(order, 2)} if names else {})
    for i in ids:
        got = {s: by_source[s][i] for s in order if i in by_source[s]}
        if not got:
            continue
        if names:
            _name_value(res, i, field, got, facts.fallback, title.get(i), require_agreement,
                        facts.credited.get((i, field)))
        else:
            _first_value(res, i, field, got)
    return res


def _require_witnesses(res: _Field, field: str, min_witnesses: int) -> int:
    """Drop item values backed by fewer than `min_witnesses` sources (reason `single_source`); how many."""
    n = 0
    for i, w in list(res.witnesses.items()):
        if w >= min_witnesses or i not in res.values:
            continue
        res.dropped[i] = f"single_source: {', '.join(res.backers.get(i, []))} only"
        del res.values[i], res.witnesses[i], res.backers[i]
        n += 1
    if n:
        res.reasons["single_source"] = n
    return n


def _write_columns(out: pd.DataFrame, field: str, res: _Field, ids: list[str], dropped_column: bool) -> None:
    names = field in NAME_FIELDS
    empty = [] if names or field in LIST_COLUMNS else None
    out[field] = [res.values.get(i, empty) for i in ids]
    if field != "imdb_id":
        out[f"{field}_sources"] = [res.backers.get(i, []) for i in ids]
    if names:
        out[f"{field}_witnesses"] = [int(res.witnesses.get(i, 0)) for i in ids]
        out[f"{field}_other"] = [res.other.get(i, []) for i in ids]
    if names or dropped_column:
        out[f"{field}_dropped"] = [res.dropped.get(i) for i in ids]


def _field_report(field: str, res: _Field, order: list[str], single_dropped: int) -> dict:
    w = Counter(res.witnesses.values())
    rep = {"sources": order, "items": len(res.values), "witnesses": {str(k): w[k] for k in sorted(w)}}
    if field in NAME_FIELDS:
        rep.update({
            "agreement": {f"{a}|{b}": {"both": c["both"], "agree": c["agree"],
                                       "rate": round(c["agree"] / c["both"], 4) if c["both"] else None}
                          for (a, b), c in res.pair.items()},
            "agreed_by_spelling": res.fuzzy,
            "disagreed": {k: v for k, v in res.reasons.items() if k != "single_source"},
            "dropped": len(res.dropped) - single_dropped, "dropped_films": res.examples})
    if single_dropped:
        rep["dropped_single_source"] = single_dropped
    return rep


def reconcile(items: pd.DataFrame, facts: Facts, require_agreement: bool = True,
              min_witnesses: int = 1) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(items with each recorded field decided from its witnesses, the facts table, the report).
    `min_witnesses` 2: a value one source alone gives is dropped too (reason `single_source`); the
    facts table keeps every row, as recorded."""
    out = items.copy()
    ids = out["item_id"].astype(str).tolist()
    title = dict(zip(ids, out["title"]))
    rows, report = [], {"require_agreement": bool(require_agreement), "fields": {}}
    if min_witnesses > 1:
        report["min_witnesses"] = int(min_witnesses)
    # imdb_id too: a row of another film leaves no id behind (the merge reads it)
    for field in list(facts.values):
        res = _decide(field, facts, ids, title, require_agreement)
        rows.extend(res.rows)
        # an id is how items are joined, not a gold: never dropped for its witnesses
        gated = min_witnesses > 1 and field != "imdb_id"
        single = _require_witnesses(res, field, min_witnesses) if gated else 0
        _write_columns(out, field, res, ids, gated)
        report["fields"][field] = _field_report(field, res, list(facts.sources(field)), single)
    if facts.forgotten:
        report["rows_of_another_film"] = dict(sorted(facts.forgotten.items()))
        report["rows_of_another_film_examples"] = facts.forgotten_examples
    table = pd.DataFrame(rows, columns=["item_id", "field", "value", "sources", "witnesses", "status"])
    table["value"] = table["value"].astype(str)
    return out, table.sort_values(["item_id", "field"], kind="mergesort").reset_index(drop=True), report
