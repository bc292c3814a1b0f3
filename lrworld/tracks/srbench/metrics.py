"""SRBench metrics: accuracy, fairness, stability, efficiency.

Conventions shared by every function here:

* ``lists``: one recommendation list per user, best first (item ids as strings). Each list is cut
  to its first K items. A list may be shorter than K (an LLM output after hallucinated ids and
  duplicates were dropped).
* Recall/NDCG count a short or empty list as it is (a miss is a miss), so hallucinations cost
  accuracy. ARP/ARQ/ARQV average over the items a list actually holds (1/|L@K| instead of 1/K;
  the same when |L@K| = K, as for every NN list) and skip users whose list is empty, so the
  fairness/stability figures describe what was delivered; `list_stats` reports how many lists
  were short or empty.
* Items with no quality score (no rating in the history) are left out of ARQ/ARQV for that list.
"""

from __future__ import annotations

import math
from typing import Collection, Mapping, Sequence

import numpy as np

List = Sequence[str]


def recall_at_k(lists: Sequence[List], targets: Sequence[Collection[str]], k: int) -> float:
    """Recall@K = (1/U) Σ_u |L_u@K ∩ R_u| / |R_u|.

    With leave-one-out (|R_u| = 1) this is the hit ratio. Users with empty R_u are skipped."""
    vals = [len(set(l[:k]) & set(r)) / len(r) for l, r in zip(lists, targets, strict=True) if r]
    return float(np.mean(vals)) if vals else math.nan


def ndcg_at_k(lists: Sequence[List], targets: Sequence[Collection[str]], k: int) -> float:
    """NDCG@K = (1/U) Σ_u DCG_u / IDCG_u, DCG_u = Σ_{i≤K, L_u[i] ∈ R_u} 1/log2(i+1) (i 1-based),
    IDCG_u = Σ_{i ≤ min(K, |R_u|)} 1/log2(i+1). Binary relevance; users with empty R_u skipped."""
    vals = []
    for l, r in zip(lists, targets, strict=True):
        if not r:
            continue
        rs = set(r)
        dcg = sum(1.0 / math.log2(i + 2) for i, it in enumerate(l[:k]) if it in rs)
        idcg = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(rs))))
        vals.append(dcg / idcg)
    return float(np.mean(vals)) if vals else math.nan


def arp_at_k(lists: Sequence[List], popularity: Mapping[str, float], k: int) -> float:
    """ARP@K = (1/U) Σ_u (1/K) Σ_{i=1..K} P_i, P_i = history interaction count of the i-th item.

    Higher = more exposure to popular items. Items missing from ``popularity`` count 0; the inner
    mean runs over the |L_u@K| delivered items and users with an empty list are skipped."""
    vals = [np.mean([popularity.get(i, 0.0) for i in l[:k]]) for l in lists if len(l[:k])]
    return float(np.mean(vals)) if vals else math.nan


def _qualities(l: List, quality: Mapping[str, float], k: int) -> list[float]:
    return [quality[i] for i in l[:k] if i in quality and not math.isnan(quality[i])]


def arq_at_k(lists: Sequence[List], quality: Mapping[str, float], k: int) -> float:
    """ARQ@K = (1/U) Σ_u (1/K) Σ_{i=1..K} Q_i, Q_i = quality score (mean history rating) of the
    i-th item. Higher = users get better-rated items. Unrated items are left out of the inner
    mean; users with no rated item in their list are skipped (NaN when nobody has one)."""
    vals = [np.mean(q) for q in (_qualities(l, quality, k) for l in lists) if q]
    return float(np.mean(vals)) if vals else math.nan


def arqv_at_k(lists: Sequence[List], quality: Mapping[str, float], k: int) -> float:
    """ARQV@K = (1/U) Σ_u Var_{i=1..K}(Q_i), the POPULATION variance (ddof = 0, divide by the
    number of rated items n: Var = (1/n) Σ (Q_i - mean Q)^2) of the qualities in each list.
    Lower = more stable quality. A list with one rated item has variance 0; users with no rated
    item are skipped."""
    vals = [float(np.var(q, ddof=0)) for q in (_qualities(l, quality, k) for l in lists) if q]
    return float(np.mean(vals)) if vals else math.nan


def arr_at_k(runs: Sequence[Sequence[List]], k: int, overlap: str = "union") -> float:
    """ARR@K = (1/(T·K)) Σ_{n=1..T} Rep_n, averaged over users; ``runs[n][u]`` is run n's list for
    user u (same user order in every run).

    Rep_n (overlap of run n's list with the other runs' lists), for one user:
      * ``overlap="union"`` (default, the seed's wording "overlapping items between the n-th
        execution and those from other runs"): Rep_n = |L_n@K ∩ ∪_{m≠n} L_m@K|, the number of
        items of run n that some other run also recommended.
      * ``overlap="pairwise"``: Rep_n = (1/(T-1)) Σ_{m≠n} |L_n@K ∩ L_m@K|, the mean overlap with
        each other run (stricter: an item seen in only one other run counts 1/(T-1)).
    Both give 1 when all T runs return the same K items and 0 when no item repeats. Needs T ≥ 2
    (NaN otherwise). Order inside a list is ignored."""
    t = len(runs)
    if t < 2:
        return math.nan
    if overlap not in ("union", "pairwise"):
        raise ValueError(f"overlap must be 'union' or 'pairwise', not {overlap!r}")
    n_users = len(runs[0])
    if any(len(r) != n_users for r in runs):
        raise ValueError("every run must hold one list per user, in the same order")
    per_user = []
    for u in range(n_users):
        sets = [set(r[u][:k]) for r in runs]
        rep = 0.0
        for n in range(t):
            others = [sets[m] for m in range(t) if m != n]
            if overlap == "union":
                rep += len(sets[n] & set().union(*others))
            else:
                rep += sum(len(sets[n] & o) for o in others) / (t - 1)
        per_user.append(rep / (t * k))
    return float(np.mean(per_user)) if per_user else math.nan


def art(latencies_s: Sequence[float]) -> float:
    """ART = (1/N) Σ_n T_{c_n}: mean wall time in seconds to produce one recommendation list, over
    all N recorded executions (every user in every run)."""
    vals = [float(x) for x in latencies_s if x is not None]
    return float(np.mean(vals)) if vals else math.nan


def list_stats(lists: Sequence[List], k: int) -> dict:
    """How many lists are shorter than K or empty (LLM outputs after extraction)."""
    n = len(lists)
    short = sum(1 for l in lists if len(l[:k]) < k)
    empty = sum(1 for l in lists if not l)
    return {"n_lists": n, "short_rate": short / n if n else math.nan, "empty_rate": empty / n if n else math.nan}


def evaluate(runs: Sequence[Sequence[List]], targets: Sequence[Collection[str]], popularity: Mapping[str, float],
             quality: Mapping[str, float], ks: Sequence[int], latencies_s: Sequence[float] = (),
             overlap: str = "union") -> dict:
    """All metrics at every K. Accuracy, fairness and ARQV are computed per run and averaged over
    the T runs (the seed averages its 10 runs); ARR uses all runs together; ART all latencies.
    Returns ``{"K=5": {"recall": ..., ...}, ..., "art_s": ..., "n_runs": T, "n_users": U}``; each
    K block also holds ``<metric>_se`` (standard error of the mean over the T runs: sample standard
    deviation / sqrt(T), NaN for T = 1) and ``per_run`` (the T values of each per-run metric)."""
    out: dict = {"n_runs": len(runs), "n_users": len(runs[0]) if runs else 0, "art_s": art(latencies_s)}
    for k in ks:
        per_run = {
            "recall": [recall_at_k(r, targets, k) for r in runs],
            "ndcg": [ndcg_at_k(r, targets, k) for r in runs],
            "arp": [arp_at_k(r, popularity, k) for r in runs],
            "arq": [arq_at_k(r, quality, k) for r in runs],
            "arqv": [arqv_at_k(r, quality, k) for r in runs],
            "short_rate": [list_stats(r, k)["short_rate"] for r in runs],
        }
        row = {m: _nanmean(v) for m, v in per_run.items()}
        row.update({f"{m}_se": _se(v) for m, v in per_run.items() if m != "short_rate"})
        row["arr"] = arr_at_k(runs, k, overlap)
        row["per_run"] = {m: v for m, v in per_run.items() if m != "short_rate"}
        out[f"K={k}"] = row
    return out


def _se(v: Sequence[float]) -> float:
    a = np.asarray(v, dtype=float)
    a = a[~np.isnan(a)]
    return float(np.std(a, ddof=1) / math.sqrt(a.size)) if a.size >= 2 else math.nan


def _nanmean(v: Sequence[float]) -> float:
    a = np.asarray(v, dtype=float)
    return float(np.nanmean(a)) if a.size and not np.isnan(a).all() else math.nan
