"""Relative-change tables: noise drop (the paper's Table 23), model size (Table 25) and k-shot
(Fig. 7), from the scores table and the paired differences."""

from __future__ import annotations

import pandas as pd

from lrworld.prompts.variants import kind, kshot_k


def rel_change(new: float, base: float) -> float:
    """(new - base) / base; NaN when the base is 0."""
    return (new - base) / base if base else float("nan")


def _value(scores, model, measure, variant):
    hit = scores[(scores["model"] == model) & (scores["measure"] == measure) & (scores["variant"] == variant)]
    return float(hit["value"].iloc[0]) if len(hit) else None


def noise_drop(scores: pd.DataFrame, paired: pd.DataFrame) -> pd.DataFrame:
    """Per model and measure: zero-shot vs noisy-profile score, relative change, and the paired
    bootstrap interval of the difference (noisy - zero_shot) on the same questions."""
    rows = []
    for r in scores[scores["variant"] == "noisy"].itertuples():
        base = _value(scores, r.model, r.measure, "zero_shot")
        if base is None:
            continue
        p = paired[(paired["kind"] == "variant") & (paired["a"] == f"{r.model}@noisy") & (paired["measure"] == r.measure)]
        p = p.iloc[0] if len(p) else None
        rows.append({"model": r.model, "measure": r.measure, "zero_shot": base, "noisy": r.value,
                     "rel_change": rel_change(r.value, base),
                     "diff_ci_low": float(p["ci_low"]) if p is not None else float("nan"),
                     "diff_ci_high": float(p["ci_high"]) if p is not None else float("nan"),
                     "significant": bool(p["significant"]) if p is not None else False})
    return pd.DataFrame(rows)


def model_size(scores: pd.DataFrame, pairs: list[dict], variant: str = "zero_shot") -> pd.DataFrame:
    rows = []
    for pair in pairs:
        for measure in sorted(set(scores["measure"])):
            s, l = (_value(scores, pair[k], measure, variant) for k in ("small", "large"))
            if s is None or l is None:
                continue
            rows.append({"small": pair["small"], "large": pair["large"], "measure": measure, "variant": variant,
                         "small_score": s, "large_score": l, "rel_change": rel_change(l, s)})
    return pd.DataFrame(rows)


def kshot_curve(scores: pd.DataFrame, default_k: int) -> pd.DataFrame:
    """Per model and measure: the score at k = 0 (zero_shot) and each k-shot variant."""
    rows = []
    for r in scores.itertuples():
        if r.variant == "zero_shot" or kind(r.variant) == "kshot":
            k = 0 if r.variant == "zero_shot" else kshot_k(r.variant, default_k)
            rows.append({"model": r.model, "measure": r.measure, "variant": r.variant, "k": k, "value": r.value,
                         "ci_low": r.ci_low, "ci_high": r.ci_high, "n": r.n})
    return pd.DataFrame(rows).sort_values(["model", "measure", "k"]).reset_index(drop=True) if rows else pd.DataFrame()
