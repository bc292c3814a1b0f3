"""Where the answers sit: slot uniformity per measure and equal slot sequences between measures.

A model that always picks one slot scores the share of answers in that slot; slots drawn uniformly
make that share 1/k in expectation, and sequences drawn from distinct streams make it differ
between measures (four measures shared one sequence, so a position-biased model scored
identically on them).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
from scipy.special import chdtrc

ALPHA = 0.001  # a slot distribution this unlikely under uniform draws fails the audit ...
MIN_N = 200  # ... once a measure has this many questions (below, the test is reported only)
CHANCE = 1e-6  # two sequences are compared once equal-by-chance is less likely than this


def uniformity(slots: list[int], n_slots: int) -> dict:
    """Counts per slot and the chi-square test against uniform; `verdict` is `fail` only for
    n >= MIN_N and p < ALPHA."""
    counts = np.bincount(np.asarray(slots, dtype=int), minlength=n_slots)[:n_slots]
    n = int(counts.sum())
    if n == 0:
        return {"n": 0, "n_slots": n_slots, "counts": counts.tolist(), "chi2": None, "p": None, "verdict": "empty"}
    # Pearson's statistic against equal expected counts and its chi-square tail, as
    # scipy.stats.chisquare computes them (tests/audit/test_slots.py compares), without the 1 s
    # that importing scipy.stats costs every audit job
    expected = n / n_slots
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    p = float(chdtrc(n_slots - 1, chi2))
    verdict = ("fail" if p < ALPHA else "pass") if n >= MIN_N else "reported (n < 200)"
    return {"n": n, "n_slots": n_slots, "counts": counts.tolist(), "chi2": chi2, "p": p,
            "verdict": verdict}


def min_comparable(n_slots: int) -> int:
    """Shortest common prefix whose equality by chance (1/n_slots per position) is below CHANCE."""
    return math.ceil(math.log(1 / CHANCE) / math.log(max(n_slots, 2)))


def equal_sequences(sequences: dict[str, tuple[list[int], int]]) -> tuple[list[tuple[str, str]], dict]:
    """Pairs whose slot sequences agree on their whole common prefix (file order), among the pairs
    whose common prefix is long enough to tell a shared stream from chance. `sequences`: name ->
    (slots, n_slots). Returns (equal pairs, counts of pairs compared and too short to compare)."""
    equal, compared, short = [], 0, 0
    for (a, (sa, ka)), (b, (sb, kb)) in combinations(sorted(sequences.items()), 2):
        m = min(len(sa), len(sb))
        if m < min_comparable(max(ka, kb)):
            short += 1
            continue
        compared += 1
        if list(sa[:m]) == list(sb[:m]):
            equal.append((a, b))
    return equal, {"pairs_compared": compared, "pairs_too_short": short}
