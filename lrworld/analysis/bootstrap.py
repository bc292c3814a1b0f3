"""Bootstrap confidence intervals over questions, and the paired bootstrap between two systems.

Percentile bootstrap: resample the n questions with replacement `n_boot` times (numpy Generator,
seeded), take the statistic (the mean of per-question correctness) of each resample and the
(1-c)/2 and (1+c)/2 percentiles (numpy's default linear interpolation). The paired bootstrap
resamples *question ids* once and applies the same resample to both systems, so the interval is
that of the difference on the same questions.
"""

from __future__ import annotations

import numpy as np


def resample_indices(n: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, n, size=(n_boot, n))


def percentile_ci(stats: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.percentile(np.asarray(stats, dtype=float), [100 * alpha, 100 * (1 - alpha)])
    return float(lo), float(hi)


def bootstrap_ci(values, n_boot: int = 1000, confidence: float = 0.95, rng: np.random.Generator | None = None,
                 idx: np.ndarray | None = None) -> dict:
    """Mean of `values` (0/1 correctness per question) with its percentile-bootstrap interval.
    `idx` (n_boot x n) may be given explicitly (tests compute one by hand)."""
    v = np.asarray(values, dtype=float)
    n = len(v)
    if n == 0:
        return {"n": 0, "mean": float("nan"), "ci_low": float("nan"), "ci_high": float("nan")}
    if idx is None:
        idx = resample_indices(n, n_boot, rng if rng is not None else np.random.default_rng(0))
    lo, hi = percentile_ci(v[idx].mean(axis=1), confidence)
    return {"n": n, "mean": float(v.mean()), "ci_low": lo, "ci_high": hi}


def paired_bootstrap(a, b, n_boot: int = 1000, confidence: float = 0.95, rng: np.random.Generator | None = None,
                     idx: np.ndarray | None = None) -> dict:
    """Difference mean(a) - mean(b) on the same questions (a[i], b[i] are question i), its interval,
    whether the interval excludes 0, and a two-sided bootstrap p-value."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired bootstrap needs the same questions: {a.shape} vs {b.shape}")
    n = len(a)
    if n == 0:
        return {"n": 0, "diff": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"),
                "significant": False, "p_value": float("nan")}
    if idx is None:
        idx = resample_indices(n, n_boot, rng if rng is not None else np.random.default_rng(0))
    d = a - b
    stats = d[idx].mean(axis=1)
    lo, hi = percentile_ci(stats, confidence)
    p = min(1.0, 2 * min(float((stats <= 0).mean()), float((stats >= 0).mean())))
    return {"n": n, "diff": float(d.mean()), "ci_low": lo, "ci_high": hi,
            "significant": bool(lo > 0 or hi < 0), "p_value": p}


def align(a: dict, b: dict) -> tuple[list[str], list[float], list[float]]:
    """Two {qid: correct} maps restricted to their common question ids, in sorted order."""
    common = sorted(set(a) & set(b))
    return common, [a[q] for q in common], [b[q] for q in common]
