"""Scores with bootstrap intervals, paired differences, and the paper-style table (Table 3 layout:
rows = models with RANDOM first, columns grouped by scale and factor)."""

from __future__ import annotations

import itertools

import pandas as pd

from lrworld.questions import measures
from lrworld.analysis.bootstrap import align, bootstrap_ci, paired_bootstrap
from lrworld.analysis.load import model_order
from lrworld.analysis.output import factor_groups
from lrworld.core.seeding import rng_for
from lrworld.prompts.variants import column_name


def resample_rng(seed: int, g: pd.DataFrame, measure: str):
    """The resamples of a (dataset, measure): drawn from its names only, never a model's or a
    variant's, so every model and variant is resampled on the same questions (two models with the
    same answers get the same interval, and a paired difference uses the resamples of its CIs)."""
    dataset = str(g["dataset"].iloc[0]) if "dataset" in g.columns and len(g) else ""
    return rng_for(seed, "bootstrap", dataset, measure)


def score_table(frame: pd.DataFrame, n_boot: int = 1000, confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    rows = []
    for (model, measure, variant), g in frame.groupby(["model", "measure", "variant"], sort=True):
        g = g.sort_values("qid")
        ci = bootstrap_ci(g["correct"].to_numpy(), n_boot, confidence, resample_rng(seed, g, measure))
        rows.append({"model": model, "measure": measure, "variant": variant, "n": ci["n"],
                     "correct": int(g["correct"].sum()), "missed": int(g["missed"].sum()), "value": ci["mean"],
                     "ci_low": ci["ci_low"], "ci_high": ci["ci_high"], "missed_rate": float(g["missed"].mean())})
    return pd.DataFrame(rows, columns=["model", "measure", "variant", "n", "correct", "missed", "value", "ci_low",
                                       "ci_high", "missed_rate"])


def _correct_map(g: pd.DataFrame) -> dict:
    return dict(zip(g["qid"], g["correct"]))


def agreement(parsed_a: dict, parsed_b: dict, qids: list[str]) -> float:
    """Share of the common questions on which both sides chose the same option (a missed answer
    agrees with nothing): e.g. the same model in generate and in choice-scoring mode."""
    if not qids:
        return float("nan")
    same = [parsed_a[q] is not None and not pd.isna(parsed_a[q]) and parsed_a[q] == parsed_b[q] for q in qids]
    return sum(same) / len(qids)


def paired_table(frame: pd.DataFrame, models: list[str], n_boot: int = 1000, confidence: float = 0.95,
                 seed: int = 0) -> pd.DataFrame:
    """Paired bootstrap differences on the same question ids: every pair of models per (measure,
    variant) (`a` - `b`, a before b in the table's order), and every variant against zero_shot per
    (model, measure) (`kind` = 'variant')."""
    rows = []
    order = model_order([m for m in models if m in set(frame["model"])])
    grouped = list(frame.groupby(["model", "measure", "variant"]))
    first = {k[1]: g for k, g in grouped}
    groups = {k: _correct_map(g) for k, g in grouped}
    choices = {k: dict(zip(g["qid"], g["parsed"])) for k, g in grouped}
    for (measure, variant) in sorted({(k[1], k[2]) for k in groups}):
        for a, b in itertools.combinations(order, 2):
            if (a, measure, variant) in groups and (b, measure, variant) in groups:
                qids, x, y = align(groups[(b, measure, variant)], groups[(a, measure, variant)])
                r = paired_bootstrap(x, y, n_boot, confidence, resample_rng(seed, first[measure], measure))
                r["agreement"] = agreement(choices[(b, measure, variant)], choices[(a, measure, variant)], qids)
                rows.append({"kind": "model", "measure": measure, "variant": variant, "a": b, "b": a, **r})
    for (model, measure, variant) in sorted(groups):
        if variant != "zero_shot" and (model, measure, "zero_shot") in groups:
            qids, x, y = align(groups[(model, measure, variant)], groups[(model, measure, "zero_shot")])
            r = paired_bootstrap(x, y, n_boot, confidence, resample_rng(seed, first[measure], measure))
            r["agreement"] = agreement(choices[(model, measure, variant)], choices[(model, measure, "zero_shot")], qids)
            rows.append({"kind": "variant", "measure": measure, "variant": variant, "a": f"{model}@{variant}",
                         "b": f"{model}@zero_shot", **r})
    return pd.DataFrame(rows, columns=["kind", "measure", "variant", "a", "b", "n", "diff", "ci_low", "ci_high",
                                       "significant", "p_value", "agreement"])


def _columns(scores: pd.DataFrame, domain: str) -> list[tuple]:
    order = measures.measure_ids(domain)
    variants = sorted(set(scores["variant"]), key=lambda v: (v != "zero_shot", v))
    present = set(zip(scores["measure"], scores["variant"]))
    return [(m, v) for v in variants for m in order if (m, v) in present]


def paper_table(scores: pd.DataFrame, paired: pd.DataFrame, domain: str, models: list[str],
                variants: list[str] | None = None):
    """(numeric wide table for CSV, formatted table for Markdown/LaTeX, LaTeX header groups).

    A cell reads `0.2500 [0.1600, 0.3400]`; `*` marks a model whose paired difference to RANDOM on
    that column's questions has a 95% interval excluding 0."""
    if variants is not None:
        scores = scores[scores["variant"].isin(variants)]
    else:  # shuffle<s> re-draws belong to the position-bias table, not the paper's Table 3
        scores = scores[~scores["variant"].str.match(r"^shuffle\d+$")]
    cols = _columns(scores, domain)
    rows = model_order([m for m in models if m in set(scores["model"])])
    sig = {(r.measure, r.variant, r.a) for r in paired.itertuples() if r.kind == "model" and r.b == "random"
           and r.significant}
    num, fmt = [], []
    for model in rows:
        nrow, frow = {"model": model}, {"model": model}
        for m, v in cols:
            hit = scores[(scores["model"] == model) & (scores["measure"] == m) & (scores["variant"] == v)]
            c = column_name(m, v)
            if hit.empty:
                nrow.update({c: float("nan"), f"{c}_ci_low": float("nan"), f"{c}_ci_high": float("nan"),
                             f"{c}_n": pd.NA, f"{c}_vs_random": ""})
                frow[c] = ""
                continue
            s = hit.iloc[0]
            mark = "*" if (m, v, model) in sig else ""
            nrow.update({c: s["value"], f"{c}_ci_low": s["ci_low"], f"{c}_ci_high": s["ci_high"],
                         f"{c}_n": int(s["n"]), f"{c}_vs_random": mark})
            frow[c] = f"{s['value']:.4f} [{s['ci_low']:.4f}, {s['ci_high']:.4f}]{mark}"
        num.append(nrow)
        fmt.append(frow)
    groups = factor_groups(domain, [m for m, _ in cols])
    return pd.DataFrame(num), pd.DataFrame(fmt, columns=["model"] + [column_name(m, v) for m, v in cols]), groups
