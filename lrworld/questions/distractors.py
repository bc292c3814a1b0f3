"""How distractors are drawn and how often one entity may be the gold (`questions.distractors`,
`questions.max_gold_share`; docs/groundtruth.md).

- `uniform` (the paper's construction): each distractor is drawn uniformly from the eligible pool.
  Golds that are popular items, active users or frequent values then stand out by their counts.
- `matched`: the gold's place among its options by the count that makes it stand out (interactions
  of an item or user, items carrying a value) is itself drawn uniformly: `m` of the n distractors
  are drawn from the entities counted at least as often as the gold, the other n - m from those
  counted at most as often, each side nearest the gold's rank first (bands of `BAND` of the pool by
  rank, random within a band: the gold's stratum). Picking the most (or least) counted option then
  finds the gold 1 time in n + 1. A question whose gold has too few entities on the drawn side
  (the most popular item when m > 0; with `every_draw`, on either side) is dropped and counted:
  such a gold can only be told by its count. Item options of a question with a history
  (assoc_rule) are matched on the words they share with it too (`render.history_overlap`). Every
  distractor comes from the builder's own eligible pool, so it stays false.
- `max_gold_share`: one entity is the gold of at most max(1, floor(share x questions asked))
  questions; a question over the cap is dropped and counted (`dropped_gold_share`). One share for
  every measure, or one per question type (`{mcq: x, hit10: y}`, a type left out: no cap): a
  4-option value measure has fewer distinct values than questions, a 10-candidate one does not.

Every draw takes the builder's own stream (`rng_for(seed, dataset, measure, ...)`).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from lrworld.questions.measures import HIT10, MCQ
from lrworld.questions.negatives import DistinctReadings

UNIFORM, MATCHED = "uniform", "matched"
MODES = (UNIFORM, MATCHED)
QUESTION_TYPES = (MCQ, HIT10)
# a stratum is this share of the pool by rank on either side of the gold
BAND = 0.03


@dataclass(frozen=True)
class Debias:
    """`questions.distractors` and `questions.max_gold_share` of the config."""
    distractors: str = UNIFORM
    max_gold_share: float | Mapping[str, float | None] | None = None

    def __post_init__(self):
        if self.distractors not in MODES:
            raise ValueError(f"questions.distractors: {self.distractors!r} is not one of {list(MODES)}")
        if isinstance(self.max_gold_share, Mapping):
            unknown = sorted(set(self.max_gold_share) - set(QUESTION_TYPES))
            if unknown:
                raise ValueError(f"questions.max_gold_share: {unknown} are not question types {list(QUESTION_TYPES)}")

    @property
    def matched(self) -> bool:
        return self.distractors == MATCHED

    def share(self, qtype: str) -> float | None:
        """The gold-share cap of a question type (`mcq`, `hit10`)."""
        if isinstance(self.max_gold_share, Mapping):
            return self.max_gold_share.get(qtype)
        return self.max_gold_share

    def cap(self, n_questions: int | None, qtype: str) -> int | None:
        """Questions one gold of a `qtype` measure may answer (None: no cap)."""
        share = self.share(qtype)
        if share is None or not n_questions:
            return None
        return max(1, math.floor(share * n_questions))

    @classmethod
    def of(cls, config_questions: Mapping | None) -> "Debias":
        q = config_questions or {}
        return cls(q.get("distractors", UNIFORM), q.get("max_gold_share"))


@dataclass
class GoldCap:
    """Counts golds as questions are kept; `full(gold)` once it answers `cap` of them."""
    cap: int | None
    taken: Counter = field(default_factory=Counter)
    dropped: int = 0

    def full(self, gold: Hashable) -> bool:
        if self.cap is not None and self.taken[gold] >= self.cap:
            self.dropped += 1
            return True
        return False

    def take(self, gold: Hashable) -> None:
        self.taken[gold] += 1


# a band of a `log` ranking: this much log(1 + count) apart (about 10% of the count)
LOG_BAND = 0.1


class Ranks:
    """Each entity's count and its rank share in the pool (0: the least counted, 1: the most).
    `log`: a count with a long tail (interactions), whose bands are log-count apart, not rank apart:
    the items just above a popular gold by rank can be counted ten times as often, and an answerer
    comparing counts, not ranks, would find the gold below its options' mean."""

    def __init__(self, counts: Mapping[Hashable, float], entities: Iterable[Hashable], log: bool = False):
        ents = list(dict.fromkeys(entities))
        self.count = {e: float(counts.get(e, 0)) for e in ents}
        order = sorted(ents, key=lambda e: (self.count[e], str(e)))
        self.share = {e: i / max(1, len(order) - 1) for i, e in enumerate(order)}
        self.log = log


def matched(order: Sequence, gold: Hashable, n: int, ranks: Ranks, rng: np.random.Generator,
            key: Callable | None = None, taken: Iterable = (), lengths: Ranks | None = None,
            fallbacks: Counter | None = None, overlap: Ranks | None = None,
            every_draw: bool = False, closeness: Ranks | None = None,
            used: Mapping[Hashable, int] | None = None) -> tuple[list, int] | None:
    """n distractors out of `order` (the eligible pool, already in the builder's random order, the
    gold left out): m ~ U{0..n} of them counted at least as often as the gold, n - m at most as
    often, each side nearest the gold's rank first. `overlap` (item options of a question with a
    history: the words each shares with it, `render.history_overlap`): also o ~ U{0..n} of them
    sharing at least as many words as the gold, n - o at most as many. `lengths` (item options
    shown by text): also l ~ U{0..n} of them at least as long as the gold's text, n - l at most as
    long; where the pool cannot fill l, the nearest count it can, and where it can fill none the
    draw is without the length and `fallbacks[LENGTH_FALLBACK]` counts it. The rankings' sides are
    combined in any way the pool can fill (one drawn at random), so each ranking's count stays as
    drawn. `key`: an option whose key is taken (the gold's, an earlier pick's) is rejected and
    counted. None when the pool cannot fill the drawn counts; with `every_draw`, also whenever a
    ranking has fewer than n on one side, whatever was drawn: a refusal that hung on the draw would
    keep the draws that put the gold on top (a pool of items; in a pool of a few values it would
    leave the most and the least frequent no question at all). `closeness` (options against the
    question's context: the year and categories a prompt prints, `option_features.closeness`): one
    more ranking drawn like `overlap`. `used` (entity -> questions of the measure already showing it):
    within a side, the least shown first, so that an option seen in other questions is rare, whatever
    it is there (the other questions' golds and appearances are what a knowledge-free answerer counts)."""
    order = sample(order)
    sides = [_sides(order, gold, ranks)] + [_sides(order, gold, r) for r in (overlap, closeness) if r is not None]
    if every_draw and any(sum(side in s for s in by[0].values()) < n for by in sides for side in (0, 1)):
        return None
    wants = [int(rng.integers(n + 1)) for _ in sides]
    if lengths is not None:
        ranked = _ranked(order, [*sides, _sides(order, gold, lengths)], used)
        want = int(rng.integers(n + 1))
        nearest = rng.permutation(n + 1)
        for w in sorted(nearest.tolist(), key=lambda w: abs(w - want)):
            got = _fill(ranked, n, [*wants, w], key, taken, rng)
            if got is not None:
                return got
        if fallbacks is not None:
            fallbacks[LENGTH_FALLBACK] += 1
    return _fill(_ranked(order, sides, used), n, wants, key, taken, rng)


# the matched draw reads this many entities of the builder's random order at most: its work per
# question is linear in the pool (a 12,000-item catalogue costs about a second a question), and the
# distractors nearest the gold's rank in a random sample of 2,000 are as near as a draw needs
MATCHED_POOL = 2000


def sample(order: Sequence) -> list:
    """The part of a pool, in the builder's random order, a matched draw reads (MATCHED_POOL)."""
    return list(order[:MATCHED_POOL])


# counted where matched() could not also match the text length (the question keeps popularity's)
LENGTH_FALLBACK = "matched_length_fallback"
# ways of combining the rankings' sides tried before a draw gives up
FILL_TRIES = 12


def _ranked(order: Sequence, sides: list[tuple[dict, dict]], used: Mapping | None = None) -> dict[tuple, list]:
    """Per cell (one side per ranking): its entities nearest the gold's band of the first ranking,
    then the least `used`, then nearest the other rankings' bands, `order` breaking ties."""
    shown = used or {}
    cells: dict[tuple, list] = {cell: [] for cell in itertools.product((0, 1), repeat=len(sides))}
    for i, e in enumerate(order):
        # an entity tied with the gold on a ranking sits on both its sides: in every such cell
        rank = (sides[0][1][e], shown.get(e, 0), *(s[1][e] for s in sides[1:]), i)
        for cell in itertools.product(*(sorted(s[0][e]) for s in sides)):
            cells[cell].append((rank, e))
    return {cell: [e for _, e in sorted(members, key=lambda m: m[0])] for cell, members in cells.items()}


def _fill(ranked: dict[tuple, list], n: int, wants: list[int], key: Callable | None, taken: Iterable,
          rng: np.random.Generator) -> tuple[list, int] | None:
    """n entities, wants[r] of them on side 0 of ranking r (the rest on side 1): the counts per
    cell that the cells' sizes allow, the first FILL_TRIES of them in a random order tried."""
    cells = [list(ranked)[i] for i in rng.permutation(len(ranked))]
    ways = _counts(cells, n, wants, {c: len(v) for c, v in ranked.items()}, rng)
    for way in itertools.islice(ways, FILL_TRIES):
        got = _draw(ranked, way, key, taken)
        if got is not None:
            # the draw order of a uniform draw: the sides interleaved at random
            return [got[0][j] for j in rng.permutation(n)], got[1]
    return None


def _counts(cells: list[tuple], n: int, wants: list[int], size: dict, rng: np.random.Generator) -> Iterator[dict]:
    """{cell: count} of n entities with wants[r] on side 0 of ranking r, no cell over its size, in a
    random order (each cell's count drawn first from a permutation), branches that cannot reach the
    wants cut at once: with four rankings there are sixteen cells, too many ways to list."""
    if not cells:
        if n == 0 and not any(wants):
            yield {}
        return
    cell, rest = cells[0], cells[1:]
    for k in rng.permutation(min(n, size[cell]) + 1).tolist():
        left = [w - k * (c == 0) for w, c in zip(wants, cell)]
        if min(left) < 0 or not _reachable(rest, n - k, left, size):
            continue
        for more in _counts(rest, n - k, left, size, rng):
            yield {cell: k, **more} if k else more


def _reachable(cells: list[tuple], n: int, wants: list[int], size: dict) -> bool:
    """Whether `cells` can hold n more entities with wants[r] of them on side 0 of ranking r."""
    if sum(size[c] for c in cells) < n:
        return False
    for r, w in enumerate(wants):
        if w > n or sum(size[c] for c in cells if c[r] == 0) < w or sum(size[c] for c in cells if c[r] == 1) < n - w:
            return False
    return True


def _sides(order: Sequence, gold: Hashable, ranks: Ranks) -> tuple[dict, dict]:
    """Per entity of `order`: its side against the gold (0: counted at least as often, 1: at most;
    a tie is on both) and its band (distance from the gold's rank share, in BANDs)."""
    g_count, g_share = ranks.count.get(gold, 0.0), ranks.share.get(gold, 0.0)
    side = {e: {0, 1} if ranks.count.get(e, 0.0) == g_count else {0} if ranks.count.get(e, 0.0) > g_count else {1}
            for e in order}
    if ranks.log:
        g_log = math.log1p(max(g_count, 0.0))
        band = {e: math.floor(abs(math.log1p(max(ranks.count.get(e, 0.0), 0.0)) - g_log) / LOG_BAND) for e in order}
    else:
        band = {e: math.floor(abs(ranks.share.get(e, 0.0) - g_share) / BAND) for e in order}
    return side, band


def _draw(ranked: dict[tuple, list], counts: dict[tuple, int], key: Callable | None,
          taken: Iterable) -> tuple[list, int] | None:
    """counts[cell] entities of each cell, nearest the gold's bands first (`ranked`: the cell's
    entities in that order); None when a cell runs short."""
    readings = DistinctReadings(key, taken)
    picked, chosen = [], set()
    for cell, want in sorted(counts.items()):
        got = 0
        for e in ranked[cell]:
            if got == want:
                break
            if e in chosen or not readings.admit(e):
                continue
            picked.append(e)
            chosen.add(e)
            got += 1
        if got < want:
            return None
    return picked, readings.rejected
