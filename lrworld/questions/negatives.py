"""Drawing negatives: uniform, without replacement, never two options that read the same."""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np


class DistinctReadings:
    """What the options taken so far read as (`key` of each; the answer's and others' in `taken`):
    `admit(e)` takes an entity that reads unlike all of them, else counts it in `rejected`. No `key`:
    every entity is admitted."""

    def __init__(self, key: Callable | None, taken: Iterable = ()):
        self.key, self.seen, self.rejected = key, set(taken), 0

    def admit(self, entity) -> bool:
        if self.key is None:
            return True
        k = self.key(entity)
        if k in self.seen:
            self.rejected += 1
            return False
        self.seen.add(k)
        return True


def draw_distinct(pool: Sequence, n: int, rng: np.random.Generator, key: Callable | None = None,
                  taken: Iterable[str] = ()) -> tuple[list, int]:
    """Up to n elements of `pool`, uniformly without replacement, in draw order. With `key`, an
    element whose key is already taken (the answer's, an earlier draw's) is rejected and the draw
    goes on. Returns (drawn, number rejected); fewer than n only when the pool runs out."""
    if key is None:
        idx = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
        return [pool[i] for i in idx], 0
    readings, out = DistinctReadings(key, taken), []
    for i in rng.permutation(len(pool)):
        if not readings.admit(pool[i]):
            continue
        out.append(pool[i])
        if len(out) == n:
            break
    return out, readings.rejected


def first_eligible(order: Sequence[int], eligible: np.ndarray, n: int, key: Callable | None = None,
                   taken: Iterable[str] = ()) -> tuple[list, int]:
    """The first n entries of `order` (a permutation of every entity, drawn before any score is
    known) that are `eligible` (bool mask by entity) and, with `key`, read unlike the answer and the
    earlier picks. Unlike drawing from the eligible pool, an entity that enters or leaves the pool
    (a score near a cut, on another machine) changes the draw only if it comes before the n-th pick."""
    readings, out = DistinctReadings(key, taken), []
    for i in order:
        if not eligible[i] or not readings.admit(i):
            continue
        out.append(int(i))
        if len(out) == n:
            break
    return out, readings.rejected
