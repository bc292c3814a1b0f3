"""Seeds derived from names, so that adding a measure or dataset never changes another's questions.

Every random draw of question construction takes its generator from `rng_for(seed, dataset,
measure, <purpose>, ...)`. The answer slot of a question has its own stream (`answer_slot`, named
by the question's key): it does not depend on the negatives drawn before it, on any other
question, or on the order questions are built in, and two (dataset, measure) pairs never share a
slot sequence (one stream for four measures put their answers in the same slots).
"""

from __future__ import annotations

import hashlib

import numpy as np

SEED_DERIVATION = "SeedSequence([seed, blake2b64(name) for each name])"


def _word(name: str) -> int:
    # 64 bits per name, stable across processes and Python versions (unlike hash()); crc32's 32 bits
    # would give about three colliding user ids among ML-25M's 162k users.
    return int.from_bytes(hashlib.blake2b(str(name).encode(), digest_size=8).digest(), "big")


def rng_for(seed: int, *names: str) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed)] + [_word(n) for n in names]))


def answer_slot(seed: int, dataset: str, measure: str, key: str, n_slots: int) -> int:
    """The slot (0..n_slots-1) the answer of question `key` is placed in, uniform."""
    return int(rng_for(seed, dataset, measure, "slot", key).integers(n_slots))


def place_answer(answer, negatives: list, slot: int) -> list:
    """The candidates: the negatives in their (random) draw order, the answer inserted at `slot`."""
    return list(negatives[:slot]) + [answer] + list(negatives[slot:])
