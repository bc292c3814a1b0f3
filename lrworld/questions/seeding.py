"""Seeds derived from names, so that adding a measure or dataset never changes another's questions."""

from __future__ import annotations

import zlib

import numpy as np


def rng_for(seed: int, *names: str) -> np.random.Generator:
    # crc32 is stable across processes and Python versions, unlike hash().
    return np.random.default_rng(np.random.SeedSequence([int(seed)] + [zlib.crc32(n.encode()) for n in names]))


def place_answer(answer, negatives: list, rng: np.random.Generator) -> tuple[list, int]:
    """Shuffle the negatives and insert the answer at a uniformly drawn slot; return (candidates, slot)."""
    negs = [negatives[i] for i in rng.permutation(len(negatives))]
    slot = int(rng.integers(len(negs) + 1))
    return negs[:slot] + [answer] + negs[slot:], slot
