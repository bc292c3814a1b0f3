"""What a knowledge-free answerer can know about each option of a question: one number per
(question, option, feature), from what the prompt shows and from the data's counts, never from the
relation the measure tests. The learned negative control (lrworld/audit/learned.py), the
construction's filter against it (lrworld/questions/validity.py) and the audit all read this one
table, so the answerer the construction is filtered against is the one the audit reports.

Each feature belongs to a signal (`Feature.signal`): a measure's declared own signals
(`Measure.own_signals`, lrworld/questions/measures.py) are the knowledge it tests and are left out
of its negative control.

- shown: the option text's length in characters and words; the release year printed beside a title
  ("Heat (1995)") and its distance to the years the context shows (the history, the target, the
  antecedents; a user option: the mean of its shown items' years); the categories printed in
  brackets ("[Action, Crime]"), their number and how many the option shares with the context; the
  words of three letters or more it shares with the context (`render.history_overlap`); its slot.
- data: the option's interactions (items, users) or items carrying it (values), log-scaled; its
  mean rating (an item's, a user's given ratings, a value's items').
- the other questions of the measure: how often the option is their gold, how often it is one of
  their options, and the ratio (leave-one-out: the question itself is never counted).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Sequence

import numpy as np

from lrworld.prompts.render import ItemTexts, history_overlap, shown
from lrworld.questions.signals import gold

if TYPE_CHECKING:
    import pandas as pd

_YEAR = re.compile(r"\((\d{4})\)")
_CATS = re.compile(r"\[([^\]]*)\]")


@dataclass(frozen=True)
class Feature:
    name: str
    signal: str  # the shortcut signal it reads (lrworld/models/shortcut.py SIGNALS, or one of these)
    doc: str


# Signals beyond the shortcut rows' (lrworld/models/shortcut.py): what a prompt prints beside a title.
YEAR_CLOSENESS, GENRE_OVERLAP, TEXT, SLOT, RATING, APPEARANCES = (
    "year_closeness", "genre_overlap", "text", "slot", "rating", "appearances_others")

FEATURES: tuple[Feature, ...] = (
    Feature("slot", SLOT, "the option's place among the options (0 first, 1 last)"),
    Feature("length_chars", TEXT, "characters of the option's shown text"),
    Feature("length_words", TEXT, "words of the option's shown text"),
    Feature("year", YEAR_CLOSENESS, "the year(s) printed in the option's text (mean)"),
    Feature("year_distance", YEAR_CLOSENESS, "distance of that year to the mean year the context prints"),
    Feature("categories", GENRE_OVERLAP, "bracketed categories printed in the option's text"),
    Feature("categories_shared", GENRE_OVERLAP, "of those, the ones the context prints too"),
    Feature("categories_jaccard", GENRE_OVERLAP, "the same as a share of both sets"),
    Feature("words_shared", "history_overlap", "words of 3+ letters the option shares with the context"),
    Feature("log_popularity", "popularity", "log(1 + interactions of the option, or items carrying it)"),
    Feature("mean_rating", RATING, "the option's mean rating in the data (0 where none)"),
    Feature("gold_count_others", "gold_count_others", "other questions of the measure whose gold it is"),
    Feature("appearances_others", APPEARANCES, "other questions of the measure that show it"),
    Feature("gold_rate_others", "gold_count_others", "gold_count_others / appearances_others (0 if none)"),
)
NAMES = tuple(f.name for f in FEATURES)


@dataclass
class OptionFeatures:
    """`values[q, o, f]`: feature f of option o of question q; `answers[q]`: the gold's option."""
    qids: list[str]
    values: np.ndarray
    answers: np.ndarray
    names: tuple[str, ...] = NAMES

    def without(self, signals: Sequence[str]) -> "OptionFeatures":
        """The table less the features reading `signals` (a measure's own)."""
        keep = [i for i, f in enumerate(FEATURES) if f.signal not in set(signals) and f.name in self.names]
        return OptionFeatures(self.qids, self.values[:, :, keep], self.answers, tuple(FEATURES[i].name for i in keep))

    def subset(self, rows: Sequence[int]) -> "OptionFeatures":
        rows = list(rows)
        return OptionFeatures([self.qids[i] for i in rows], self.values[rows], self.answers[rows], self.names)


class DataCounts:
    """Per option kind (item, user, value), each entity's interactions and mean rating."""

    def __init__(self, interactions: pd.DataFrame, items: pd.DataFrame | None = None, field: str | None = None):
        from lrworld.questions.signals import popularity

        self.popularity = popularity(interactions, items, field)
        rated = interactions.dropna(subset=["rating"]) if "rating" in interactions else interactions.iloc[:0]
        self.rating = {"item": rated.groupby(rated["item_id"].astype(str))["rating"].mean().to_dict(),
                       "user": rated.groupby(rated["user_id"].astype(str))["rating"].mean().to_dict()}
        if items is not None and field and field in items.columns:
            from lrworld.core.cells import strings

            by_value: dict[str, list[float]] = {}
            for item, cell in zip(items["item_id"].astype(str), items[field]):
                r = self.rating["item"].get(item)
                if r is not None:
                    for v in dict.fromkeys(strings(cell)):
                        by_value.setdefault(v, []).append(r)
            self.rating["value"] = {v: float(np.mean(rs)) for v, rs in by_value.items()}


def _years(text: str) -> list[int]:
    return [int(y) for y in _YEAR.findall(text)]


def _categories(text: str) -> set[str]:
    return {c.strip().lower() for block in _CATS.findall(text) for c in block.split(",") if c.strip()}


def _mean(xs: Sequence[float]) -> float:
    return float(np.mean(xs)) if len(xs) else float("nan")


# a year apart counts against closeness as this share of one whole category set in common
YEAR_SCALE = 10.0


class Profile(NamedTuple):
    """The years and categories a shown text prints (several texts: their mean year, all categories)."""
    year: float
    categories: frozenset

    @classmethod
    def of(cls, texts: Sequence[str]) -> "Profile":
        return cls(_mean([y for t in texts for y in _years(t)]), frozenset(c for t in texts for c in _categories(t)))


def closeness(option: Profile, context: Profile) -> float:
    """How near an option's printed year and categories are to the context's: the categories'
    Jaccard share less the years' distance in YEAR_SCALEs (a part a text does not print counts 0).
    The matched draw ranks the pool by it (`distractors.matched`, `closeness=`), so the option
    nearest the context in what a prompt prints is the gold 1 time in n."""
    near = 0.0
    if option.categories and context.categories:
        near += len(option.categories & context.categories) / len(option.categories | context.categories)
    if option.year == option.year and context.year == context.year:
        near -= abs(option.year - context.year) / YEAR_SCALE
    return near


class Closeness:
    """The profiles a prompt prints of items (their hit10 text: `title (year) [categories]`) and of
    users (their most recent items, as a user option shows them), and the closeness ranking of a
    pool against a context."""

    def __init__(self, items: pd.DataFrame, interactions: pd.DataFrame | None = None,
                 exclude_values: dict[str, list[str]] | None = None):
        from lrworld.prompts.render import USER_ITEMS_SHOWN

        texts = ItemTexts(items, exclude_values)
        self.item = {str(i): Profile.of([texts.detailed(str(i))]) for i in items["item_id"]}
        # items whose text prints no year and no category (Amazon 2014 sequences): nothing to match
        self.prints = any(p.year == p.year or p.categories for p in self.item.values())
        self.user: dict[str, Profile] = {}
        self._histories: dict[str, list[str]] = {}
        if interactions is not None:
            for u, g in interactions.groupby("user_id", sort=False)["item_id"]:
                self._histories[str(u)] = [str(x) for x in g.to_numpy()]
                self.user[str(u)] = self.items(self._histories[str(u)][-USER_ITEMS_SHOWN:])

    def recent(self, user: str, n: int) -> list[str]:
        """The user's latest n items, most recent last (as `groundtruth.questions.recent_items`)."""
        return self._histories.get(str(user), [])[-n:]

    def items(self, ids: Sequence[str]) -> Profile:
        """The profile of several items shown together (a history, a user's recent items)."""
        ps = [self.item[i] for i in map(str, ids) if i in self.item]
        return Profile(_mean([p.year for p in ps if p.year == p.year]), frozenset(c for p in ps for c in p.categories))

    def ranks(self, context: Profile, pool: Sequence, kind: str = "item"):
        """`distractors.Ranks` of `pool` (ids) by closeness to `context`; None where no item text
        prints a year or a category."""
        from lrworld.questions.distractors import Ranks

        if not self.prints:
            return None

        profiles = self.item if kind == "item" else self.user
        empty = Profile(float("nan"), frozenset())
        return Ranks({e: closeness(profiles.get(str(e), empty), context) for e in pool}, pool)


def _shown_rows(q: dict, texts: ItemTexts, counts: DataCounts, golds: Counter, shows: Counter) -> np.ndarray:
    """One row of NAMES per option of `q`."""
    hist, target, options = shown(q, texts)
    context = [*hist, *([target] if target else [])]
    ctx_year = _mean([y for t in context for y in _years(t)])
    ctx_cats = {c for t in context for c in _categories(t)}
    shared_words = history_overlap(options, context)
    kind = q.get("candidate_kind")
    pops, ratings = counts.popularity.get(kind) or {}, counts.rating.get(kind) or {}
    own = gold(q)
    n = len(options)
    rows = []
    for o, (cand, text) in enumerate(zip(map(str, q["candidates"]), options)):
        year = _mean(_years(text))
        cats = _categories(text)
        g_others = golds[cand] - (cand == own)
        a_others = shows[cand] - 1
        rows.append([o / max(1, n - 1), len(text), len(text.split()), year,
                     abs(year - ctx_year) if year == year and ctx_year == ctx_year else float("nan"),
                     len(cats), len(cats & ctx_cats), len(cats & ctx_cats) / max(1, len(cats | ctx_cats)),
                     shared_words[o], float(np.log1p(pops.get(cand, 0))), float(ratings.get(cand, 0.0)),
                     g_others, a_others, g_others / a_others if a_others > 0 else 0.0])
    return np.asarray(rows, dtype=np.float64)


def option_features(questions: list[dict], items: pd.DataFrame, counts: DataCounts,
                    exclude_values: dict[str, list[str]] | None = None,
                    texts: ItemTexts | None = None) -> OptionFeatures:
    """The feature table of one measure's questions (all with the same number of options). A
    feature a prompt does not show (no year printed) is filled with its mean over the measure, so
    it tells nothing."""
    texts = texts or ItemTexts(items, exclude_values)
    golds = Counter(gold(q) for q in questions)
    shows = Counter(str(c) for q in questions for c in q["candidates"])
    if not questions:
        return OptionFeatures([], np.zeros((0, 0, len(NAMES))), np.zeros(0, dtype=int))
    values = np.stack([_shown_rows(q, texts, counts, golds, shows) for q in questions])
    seen = ~np.isnan(values)
    means = np.where(seen.any(axis=(0, 1)), np.where(seen, values, 0).sum(axis=(0, 1)) / np.maximum(1, seen.sum(axis=(0, 1))), 0.0)
    filled = np.where(seen, values, means)
    return OptionFeatures([q["qid"] for q in questions], filled,
                          np.asarray([int(q["answer_index"]) for q in questions]))


def closeness_of(job, debias) -> Closeness | None:
    """The Closeness of a ground-truth rule's job (its item table, interactions and
    `questions.exclude_values`) under matched distractors; None otherwise."""
    if not debias.matched:
        return None
    import pandas as pd

    return Closeness(pd.read_parquet(job.input.item_table), pd.read_parquet(job.input.interactions),
                     dict(job.params.exclude_values))
