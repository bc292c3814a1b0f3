"""Popularity bias (the paper's A.9): items split at the mean log-frequency into POP and NON-POP;
the NON-POP share among a model's errors and among its correct answers."""

from __future__ import annotations

import numpy as np
import pandas as pd


def popularity_split(interactions: pd.DataFrame) -> tuple[dict, float]:
    """{item_id: 'POP' | 'NON-POP'} over items with at least one interaction, and the threshold
    (the mean of log(count) over those items). An item exactly at the mean is POP."""
    counts = interactions["item_id"].astype(str).value_counts()
    logf = np.log(counts.astype(float))
    thr = float(logf.mean())
    return {i: ("POP" if lf >= thr else "NON-POP") for i, lf in logf.items()}, thr


def nonpop_shares(frame: pd.DataFrame, target_of: dict, split: dict) -> pd.DataFrame:
    """`frame`: per-question rows (model, measure, variant, qid, correct). `target_of`: qid -> the
    question's target item. Items without interactions count as NON-POP."""
    rows = []
    for (model, measure, variant), g in frame.groupby(["model", "measure", "variant"], sort=False):
        cls = g["qid"].map(lambda q: split.get(str(target_of.get(q)), "NON-POP"))
        nonpop = cls == "NON-POP"
        err = g["correct"] == 0
        n_err, n_ok = int(err.sum()), int((~err).sum())
        rows.append({"model": model, "measure": measure, "variant": variant, "n": len(g),
                     "nonpop_questions": int(nonpop.sum()),
                     "errors": n_err, "nonpop_errors": int((nonpop & err).sum()),
                     "nonpop_share_errors": float((nonpop & err).sum() / n_err) if n_err else float("nan"),
                     "correct": n_ok, "nonpop_correct": int((nonpop & ~err).sum()),
                     "nonpop_share_correct": float((nonpop & ~err).sum() / n_ok) if n_ok else float("nan")})
    return pd.DataFrame(rows)
