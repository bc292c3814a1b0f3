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
  (the most popular item when m > 0) is dropped and counted: such a gold can only be told by its
  count. Every distractor comes from the builder's own eligible pool, so it stays false.
- `max_gold_share`: one entity is the gold of at most max(1, floor(share x questions asked))
  questions; a question over the cap is dropped and counted (`dropped_gold_share`).

Every draw takes the builder's own stream (`rng_for(seed, dataset, measure, ...)`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np

UNIFORM, MATCHED = "uniform", "matched"
MODES = (UNIFORM, MATCHED)
# a stratum is this share of the pool by rank on either side of the gold
BAND = 0.03


@dataclass(frozen=True)
class Debias:
    """`questions.distractors` and `questions.max_gold_share` of the config."""
    distractors: str = UNIFORM
    max_gold_share: float | None = None

    def __post_init__(self):
        if self.distractors not in MODES:
            raise ValueError(f"questions.distractors: {self.distractors!r} is not one of {list(MODES)}")

    @property
    def matched(self) -> bool:
        return self.distractors == MATCHED

    def cap(self, n_questions: int | None) -> int | None:
        """Questions one gold may answer (None: no cap)."""
        if self.max_gold_share is None or not n_questions:
            return None
        return max(1, math.floor(self.max_gold_share * n_questions))

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


class Ranks:
    """Each entity's count and its rank share in the pool (0: the least counted, 1: the most)."""

    def __init__(self, counts: Mapping[Hashable, float], entities: Iterable[Hashable]):
        ents = list(dict.fromkeys(entities))
        self.count = {e: float(counts.get(e, 0)) for e in ents}
        order = sorted(ents, key=lambda e: (self.count[e], str(e)))
        self.share = {e: i / max(1, len(order) - 1) for i, e in enumerate(order)}


def matched(order: Sequence, gold: Hashable, n: int, ranks: Ranks, rng: np.random.Generator,
            key: Callable | None = None, taken: Iterable = ()) -> tuple[list, int] | None:
    """n distractors out of `order` (the eligible pool, already in the builder's random order, the
    gold left out): m ~ U{0..n} of them counted at least as often as the gold, n - m at most as
    often, each side nearest the gold's rank first. `key`: an option whose key is taken (the
    gold's, an earlier pick's) is rejected and counted. None when a side runs short."""
    m = int(rng.integers(n + 1))
    g_count, g_share = ranks.count.get(gold, 0.0), ranks.share.get(gold, 0.0)
    pos = {e: i for i, e in enumerate(order)}
    band = {e: math.floor(abs(ranks.share.get(e, 0.0) - g_share) / BAND) for e in order}
    above = sorted((e for e in order if ranks.count.get(e, 0.0) >= g_count), key=lambda e: (band[e], pos[e]))
    below = sorted((e for e in order if ranks.count.get(e, 0.0) <= g_count), key=lambda e: (band[e], pos[e]))
    seen = set(taken)
    picked, rejected, chosen = [], 0, set()
    for side, want in ((above, m), (below, n - m)):
        got = 0
        for e in side:
            if got == want:
                break
            if e in chosen:
                continue
            if key is not None:
                k = key(e)
                if k in seen:
                    rejected += 1
                    continue
                seen.add(k)
            picked.append(e)
            chosen.add(e)
            got += 1
        if got < want:
            return None
    # the draw order of a uniform draw: the sides interleaved at random
    return [picked[i] for i in rng.permutation(len(picked))], rejected
