"""The paper's figures with matplotlib (Agg): grouped bars per model over the measures, noise-drop
bars, position-bias box plots, popularity split bars, the k-shot curve, and per results table the
models x measures heatmap and the radar over the factors (the paper's Figure 3 style). PNG + SVG each."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from lrworld.analysis.output import save_figure  # noqa: E402

plt.rcParams["svg.hashsalt"] = "lrworld"


def _empty(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


def grouped_bars(scores: pd.DataFrame, models: list[str], stem, title: str, variant: str = "zero_shot"):
    """Per-model bars over the measures (factors), with the bootstrap interval as error bars."""
    s = scores[scores["variant"] == variant]
    measures = list(dict.fromkeys(s["measure"]))
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(measures) + 2), 3.2))
    if s.empty:
        _empty(ax, "no scores")
        return _done(fig, stem)
    width = 0.8 / max(1, len(models))
    x = np.arange(len(measures))
    for i, model in enumerate(models):
        vals, lo, hi = [], [], []
        for m in measures:
            hit = s[(s["model"] == model) & (s["measure"] == m)]
            v = float(hit["value"].iloc[0]) if len(hit) else np.nan
            vals.append(v)
            lo.append(v - float(hit["ci_low"].iloc[0]) if len(hit) else 0)
            hi.append(float(hit["ci_high"].iloc[0]) - v if len(hit) else 0)
        ax.bar(x + (i - (len(models) - 1) / 2) * width, vals, width, yerr=[lo, hi], capsize=2, label=model)
    ax.set_xticks(x, measures, rotation=20, ha="right")
    ax.set_ylabel("score (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(fontsize=7)
    return _done(fig, stem)


def noise_bars(noise: pd.DataFrame, stem, title: str):
    fig, ax = plt.subplots(figsize=(5, 3.2))
    if noise.empty:
        _empty(ax, "no noisy variant")
        return _done(fig, stem)
    labels = [f"{r.model}\n{r.measure}" for r in noise.itertuples()]
    vals = (noise["rel_change"].fillna(0) * 100).to_numpy()
    ax.bar(range(len(vals)), vals, color=["tab:red" if v < 0 else "tab:green" for v in vals])
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(range(len(vals)), labels, fontsize=7)
    ax.set_ylabel("relative change, noisy vs zero-shot (%)")
    ax.set_title(title)
    return _done(fig, stem)


def position_boxes(position: pd.DataFrame, stem, title: str):
    fig, ax = plt.subplots(figsize=(5, 3.2))
    seed_cols = [c for c in position.columns if str(c).startswith("shuffle")]
    if position.empty or not seed_cols:
        _empty(ax, "no shuffle variants")
        return _done(fig, stem)
    data = [position.loc[i, seed_cols].dropna().to_numpy(dtype=float) for i in position.index]
    ax.boxplot(data)
    ax.set_xticks(range(1, len(data) + 1), [f"{r.model}\n{r.measure}" for r in position.itertuples()], fontsize=7)
    ax.set_ylabel(f"score over {len(seed_cols)} slot seeds")
    ax.set_title(title)
    return _done(fig, stem)


def popularity_bars(pop: pd.DataFrame, stem, title: str):
    fig, ax = plt.subplots(figsize=(5, 3.2))
    if pop.empty:
        _empty(ax, "no responses")
        return _done(fig, stem)
    x = np.arange(len(pop))
    ax.bar(x - 0.2, pop["nonpop_share_errors"].fillna(0), 0.4, label="among errors")
    ax.bar(x + 0.2, pop["nonpop_share_correct"].fillna(0), 0.4, label="among correct")
    ax.set_xticks(x, [f"{r.model}\n{r.measure}" for r in pop.itertuples()], fontsize=7)
    ax.set_ylabel("NON-POP share")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax.set_title(title)
    return _done(fig, stem)


def kshot_lines(curve: pd.DataFrame, stem, title: str):
    fig, ax = plt.subplots(figsize=(5, 3.2))
    if curve.empty:
        _empty(ax, "no kshot variants")
        return _done(fig, stem)
    for (model, measure), g in curve.groupby(["model", "measure"]):
        ax.errorbar(g["k"], g["value"], yerr=[g["value"] - g["ci_low"], g["ci_high"] - g["value"]], marker="o",
                    capsize=2, label=f"{model} / {measure}")
    ax.set_xticks(sorted(set(curve["k"])))
    ax.set_xlabel("shots (k)")
    ax.set_ylabel("score (95% CI)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax.set_title(title)
    return _done(fig, stem)


def heatmap(values: pd.DataFrame, degenerate: pd.DataFrame, stem, title: str):
    """Models (rows) x measures (columns) of a results table, each cell annotated with its value
    (`†` degenerate); one colour scale 0-1 for every table, so two datasets' maps compare."""
    cols = list(values.columns[1:])
    fig, ax = plt.subplots(figsize=(max(4, 1.1 * len(cols) + 2.5), max(2.2, 0.5 * len(values) + 1.6)))
    if values.empty or not cols:
        _empty(ax, "no scores")
        return _done(fig, stem)
    data = values[cols].to_numpy(dtype=float)
    im = ax.imshow(data, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            if not np.isnan(data[i, j]):
                mark = "\u2020" if bool(degenerate.iloc[i][cols[j]]) else ""
                ax.text(j, i, f"{data[i, j]:.2f}{mark}", ha="center", va="center", fontsize=8,
                        color="black" if data[i, j] > 0.6 else "white")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(values)), list(values["model"]), fontsize=8)
    fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02, label="primary metric")
    ax.set_title(title)
    return _done(fig, stem)


def radar(values: pd.DataFrame, labels: list[str], stem, title: str):
    """One closed polygon per model over the table's measures (`labels`: each axis's factor), radius
    0-1; needs three axes or more."""
    cols = list(values.columns[1:])
    fig = plt.figure(figsize=(6, 5.2))
    if len(cols) < 3:
        _empty(fig.add_subplot(), f"a radar needs 3 or more measures ({len(cols)} here)")
        return _done(fig, stem)
    ax = fig.add_subplot(projection="polar")
    angles = np.linspace(0, 2 * np.pi, len(cols), endpoint=False)
    closed = np.append(angles, angles[0])
    for _, row in values.iterrows():
        v = np.nan_to_num(row[cols].to_numpy(dtype=float))  # a missing cell draws at 0
        ax.plot(closed, np.append(v, v[0]), lw=1.5, label=str(row["model"]))
        ax.fill(closed, np.append(v, v[0]), alpha=0.12)
    ax.set_xticks(angles, labels, fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], ["0.25", "0.5", "0.75", "1"], fontsize=6)
    ax.set_title(title, pad=18)
    ax.legend(fontsize=7, loc="upper right", bbox_to_anchor=(1.3, 1.12))
    return _done(fig, stem)


def _done(fig, stem):
    paths = save_figure(fig, stem)
    plt.close(fig)
    return paths
