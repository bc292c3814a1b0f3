"""Position bias (the paper's A.3): the correct answer's slot distribution per measure (Tables
12-14) and the score under re-drawn slots, mean and variance over seeds (Tables 6 and 11)."""

from __future__ import annotations

import pandas as pd

from lrworld.prompts.render import labels_for
from lrworld.prompts.variants import kind


def slot_distribution(records: list[dict], measure: str, variant: str = "questions") -> pd.DataFrame:
    """Counts and shares of `answer_index` per slot label, one row per measure (and variant)."""
    if not records:
        return pd.DataFrame()
    n_cand = len(records[0]["candidates"])
    labels = labels_for(n_cand)
    counts = [0] * n_cand
    for r in records:
        counts[int(r["answer_index"])] += 1
    n = len(records)
    row = {"measure": measure, "source": variant, "n": n}
    for lab, c in zip(labels, counts):
        row[f"{lab}"] = c
    for lab, c in zip(labels, counts):
        row[f"{lab}_share"] = c / n
    return pd.DataFrame([row])


def position_bias(scores: pd.DataFrame) -> pd.DataFrame:
    """Per model and measure: the score under each shuffle seed, their mean, variance (ddof=1, the
    sample variance over seeds) and std, and the zero-shot score for reference."""
    sh = scores[scores["variant"].map(lambda v: kind(v) == "shuffle")]
    rows = []
    for (model, measure), g in sh.groupby(["model", "measure"], sort=False):
        g = g.sort_values("variant", key=lambda s: s.str.replace("shuffle", "").astype(int))
        zs = scores[(scores["model"] == model) & (scores["measure"] == measure) & (scores["variant"] == "zero_shot")]
        row = {"model": model, "measure": measure, "seeds": len(g),
               "zero_shot": float(zs["value"].iloc[0]) if len(zs) else float("nan"),
               "mean": float(g["value"].mean()), "variance": float(g["value"].var(ddof=1)) if len(g) > 1 else 0.0,
               "std": float(g["value"].std(ddof=1)) if len(g) > 1 else 0.0,
               "min": float(g["value"].min()), "max": float(g["value"].max())}
        for v, val in zip(g["variant"], g["value"]):
            row[v] = float(val)
        rows.append(row)
    return pd.DataFrame(rows)
