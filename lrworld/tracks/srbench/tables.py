"""SRBench tables: one per dataset (every metric at every K), and the rank-sum summary.

Rank-sum (the seed's Figure 3): for each metric column, the M recommenders are ranked and the
best gets M points, the next M-1, ... the worst 1 (ties share the mean of their points).
Direction: higher is better for Recall, NDCG, ARQ, ARR; lower is better for ARP (less popularity
bias), ARQV (more stable quality) and ART (faster). A recommender whose value is NaN for a
metric (ARR with one run, ARQ without ratings) gets 0 points there; a column that is NaN for
every recommender is left out. Points are summed per dimension and in total.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import pandas as pd

from lrworld.core.markdown import pipe_table
METRICS_AT_K = ("recall", "ndcg", "arp", "arq", "arqv", "arr")
HIGHER_IS_BETTER = {"recall": True, "ndcg": True, "arp": False, "arq": True, "arqv": False, "arr": True, "art_s": False}
DIMENSION = {"recall": "accuracy", "ndcg": "accuracy", "arp": "fairness", "arq": "fairness",
             "arqv": "stability", "arr": "stability", "art_s": "efficiency"}


SE_METRICS = ("recall", "ndcg")  # shown with their standard error over runs


def dataset_table(scores: Mapping[str, dict], ks: Sequence[int]) -> pd.DataFrame:
    """Rows = recommenders (insertion order), columns ``<metric>@<K>`` for K in ks (and
    ``recall_se@<K>``, ``ndcg_se@<K>``: standard errors over the runs), then ``art_s``,
    ``hallucination_rate`` (LLMs; NaN for NN), ``n_runs``, ``n_users``, and for trained
    baselines the mean ``best_epoch`` and ``epochs_run`` over their seeds (NaN otherwise)."""
    def _num(v):  # score files write a missing value (NaN) as null: valid JSON
        return math.nan if v is None else v

    rows = []
    for name, s in scores.items():
        row: dict = {"recommender": name}
        for k in ks:
            block = s.get(f"K={k}", {})
            for m in METRICS_AT_K:
                row[f"{m}@{k}"] = _num(block.get(m))
            for m in SE_METRICS:
                row[f"{m}_se@{k}"] = _num(block.get(f"{m}_se"))
        row["art_s"] = _num(s.get("art_s"))
        row["hallucination_rate"] = _num(s.get("hallucination_rate"))
        row["n_runs"] = s.get("n_runs")
        row["n_users"] = s.get("n_users")
        trained = [t for t in s.get("training", []) if t.get("max_epochs")]
        row["best_epoch"] = sum(t["best_epoch"] for t in trained) / len(trained) if trained else math.nan
        row["epochs_run"] = sum(t["epochs_run"] for t in trained) / len(trained) if trained else math.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("recommender")


def with_errors(table: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """For display: each ``recall@K``/``ndcg@K`` cell as "mean ± se" (the mean alone when the
    error is NaN, i.e. one run), the ``*_se@K`` columns folded in."""
    out = table.copy().astype(object)
    for col in [c for c in table.columns if "_se@" in c]:
        metric, k = col.split("_se@")
        base = f"{metric}@{k}"
        out[base] = ["–" if math.isnan(m) else f"{m:.{digits}f}" + ("" if math.isnan(e) else f" ± {e:.{digits}f}")
                     for m, e in zip(table[base], table[col])]
        del out[col]
    return out


def _metric(col: str) -> str:
    return col.split("@")[0]


def rank_points(table: pd.DataFrame) -> pd.DataFrame:
    """Points per recommender and metric column (best = M points, worst = 1, NaN = 0)."""
    cols = [c for c in table.columns if _metric(c) in HIGHER_IS_BETTER and not table[c].isna().all()]
    pts = pd.DataFrame(index=table.index)
    for c in cols:
        asc = not HIGHER_IS_BETTER[_metric(c)]  # rank 1 = worst
        pts[c] = table[c].rank(ascending=not asc, method="average", na_option="keep").fillna(0.0)
    return pts


def rank_sum(table: pd.DataFrame) -> pd.DataFrame:
    """Per-dimension and total points, sorted by total (best first)."""
    pts = rank_points(table)
    out = pd.DataFrame(index=table.index)
    for dim in ("accuracy", "fairness", "stability", "efficiency"):
        cols = [c for c in pts.columns if DIMENSION[_metric(c)] == dim]
        out[dim] = pts[cols].sum(axis=1) if cols else 0.0
    out["total"] = out.sum(axis=1)
    return out.sort_values("total", ascending=False, kind="mergesort")


def to_markdown(df: pd.DataFrame, digits: int = 4) -> str:
    """A GitHub markdown table without the optional tabulate dependency."""
    df = df.reset_index()

    def fmt(v) -> str:
        if isinstance(v, float):
            return "–" if math.isnan(v) else (f"{v:.{digits}f}" if abs(v) < 1000 else f"{v:.1f}")
        return str(v)

    return "\n".join(pipe_table(df.columns, ([fmt(v) for v in row] for row in df.itertuples(index=False)))) + "\n"
