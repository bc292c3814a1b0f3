"""The same-work guard of the metadata joins: an id match alone attached another film's
facts (HetRec's row for "The Terminator (1984)" names McG; the IMDb details give "The Mask (1994)"
Pulp Fiction's row). A metadata row is kept only when it is the item's work: its IMDb id agrees
where both sides have one, else its normalised title reads like the item's (difflib ratio at least
`MIN_TITLE_SIMILARITY`) and its year is within the tolerance. Every dropped row is counted under
its reason, with a few examples, for the ingest report.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

import pandas as pd

from lrworld.data.titles import display_title
from lrworld.core.display import display_key, without_accents

MIN_TITLE_SIMILARITY = 0.8
EXAMPLES = 3
_YEAR = re.compile(r"\s*\((\d{4})\)\s*$")


_ALT = re.compile(r"\(([^()]*)\)")
_AKA = re.compile(r"^(a\.?k\.?a\.?|aka)\s+", re.I)


def title_key(title) -> str:
    """'Usual Suspects, The (1995)' and 'The usual suspects' -> 'the usual suspects' (accents off)."""
    t = display_key(display_title(_YEAR.sub("", str(title or ""))))
    return without_accents(t)


def title_variants(title) -> list[str]:
    """The main title and each alternate MovieLens gives in parentheses ('Postino, Il (The Postman)',
    'Seven (a.k.a. Se7en)'), as keys."""
    t = _YEAR.sub("", str(title or ""))
    alts = [_AKA.sub("", a.strip()) for a in _ALT.findall(t)]
    return [k for k in dict.fromkeys(title_key(x) for x in [_ALT.sub("", t), *alts]) if k]


def title_similarity(a, b) -> float:
    """The best difflib ratio between any variant of one title and any of the other."""
    return max((SequenceMatcher(None, x, y).ratio() for x in title_variants(a) for y in title_variants(b)),
               default=0.0)


def imdb_number(v) -> int | None:
    """'tt0110912', '0110912', 110912, 'http://www.imdb.com/title/tt0110912/' -> 110912."""
    if v is None or (isinstance(v, float) and v != v):
        return None
    m = re.search(r"(?:tt)?(\d{5,9})", str(v))
    return int(m.group(1)) if m else None


def _year(v) -> int | None:
    try:
        return None if v is None or pd.isna(v) else int(float(v))
    except (TypeError, ValueError):
        return None


class Guard:
    """Decides per (item, metadata row) and counts the drops."""

    def __init__(self, year_tolerance: int = 1, min_similarity: float = MIN_TITLE_SIMILARITY):
        self.year_tolerance, self.min_similarity = year_tolerance, min_similarity
        self.dropped: Counter = Counter()
        self.examples: dict[str, list[str]] = {}

    def drop(self, reason: str, example: str) -> bool:
        self.dropped[reason] += 1
        ex = self.examples.setdefault(reason, [])
        if len(ex) < EXAMPLES:
            ex.append(example)
        return False

    def same_work(self, item_id, title, year, imdb, row_title, row_year, row_imdb, row_alt=None) -> bool:
        """`row_alt`: another title of the row (HetRec's Spanish title) that may match instead."""
        mine, theirs = imdb_number(imdb), imdb_number(row_imdb)
        what = f"item {item_id} {title!r} ({_year(year)}) vs {row_title!r} ({_year(row_year)})"
        if mine is not None and theirs is not None:
            return mine == theirs or self.drop("imdb_id_differs", f"{what}: tt{mine:07d} vs tt{theirs:07d}")
        y, ry = _year(year), _year(row_year)
        if y is not None and ry is not None and abs(y - ry) > self.year_tolerance:
            return self.drop("year_differs", what)
        sim = max(title_similarity(title, row_title), title_similarity(title, row_alt) if row_alt else 0.0)
        if sim < self.min_similarity:
            return self.drop("title_differs", f"{what}: similarity {sim:.2f}")
        return True

    def report(self) -> dict:
        return {"dropped_not_same_work": dict(sorted(self.dropped.items())),
                "dropped_examples": {k: v for k, v in sorted(self.examples.items())},
                "min_title_similarity": self.min_similarity, "year_tolerance": self.year_tolerance}
