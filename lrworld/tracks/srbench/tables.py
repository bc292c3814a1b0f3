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

METRICS_AT_K = ("recall", "ndcg", "arp", "arq", "arqv", "arr")
HIGHER_IS_BETTER = {"recall": True, "ndcg": True, "arp": False, "arq": True, "arqv": False, "arr": True, "art_s": False}
DIMENSION = {"recall": "accuracy", "ndcg": "accuracy", "arp": "fairness", "arq": "fairness",
             "arqv": "stability", "arr": "stability", "art_s": "efficiency"}


def dataset_table(scores: Mapping[str, dict], ks: Sequence[int]) -> pd.DataFrame:
    """Rows = recommenders (insertion order), columns ``<metric>@<K>`` for K in ks, then
    ``art_s``, ``hallucination_rate`` (LLMs; NaN for NN), ``n_runs``, ``n_users``."""
    rows = []
    for name, s in scores.items():
        row: dict = {"recommender": name}
        for k in ks:
            block = s.get(f"K={k}", {})
            for m in METRICS_AT_K:
                row[f"{m}@{k}"] = block.get(m, math.nan)
        row["art_s"] = s.get("art_s", math.nan)
        row["hallucination_rate"] = s.get("hallucination_rate", math.nan)
        row["n_runs"] = s.get("n_runs")
        row["n_users"] = s.get("n_users")
        rows.append(row)
    return pd.DataFrame(rows).set_index("recommender")


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

    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body]) + "\n"
