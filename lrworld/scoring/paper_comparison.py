"""Our cells beside the LRWorld paper's: for every model with a paper row (`paper_name`, RANDOM for
the random backend) and every zero-shot measure the paper reports for the dataset's paper table
(Table 2, 3 or 22; a model it has no row for from Tables 5, 23 and 25: the 70B models, the
GPT-4s), ours with its 95% interval, the paper's figure, the difference, and whether the
paper's figure lies inside our interval; the missed rates beside (Tables 19-21). The ablation cells
the paper printed stand beside ours the same way: noisy profiles (Table 23), LlaVA-1.6 shown the
image (`visual`, Table 4), and the mean over five answer orders (Table 6; our mean has no interval).

The paper's cells are over its own data (ML-25M, the Netflix Prize, five Amazon 2018 categories)
and its question counts; ours over the run's. RANDOM's 0.1000 / 0.2500 are the expected values of
a uniform pick over 10 / 4 options, so a random row whose interval misses them is a defect."""

from __future__ import annotations

import re

import pandas as pd

from lrworld.core.markdown import pipe_table
from lrworld.paper import experiments
from lrworld.paper import figures as paper
from lrworld.prompts.variants import column_name, kind, name_pattern
from lrworld.questions import measures
from lrworld.scoring.table import METRIC_LABEL

PAPER_DATASET_LABEL = {"amazon": "Amazon", "movielens": "MovieLens", "netflix": "Netflix", "lastfm": "LastFM"}
INSIDE, OUTSIDE = "\u2713", "\u2717"
COLUMNS = ["model", "paper_name", "paper_table", "measure", "variant", "column", "metric", "n", "ours", "ci_low",
           "ci_high", "paper", "paper_n", "diff", "inside", "missed_rate", "paper_missed_rate"]


def _cells(table: pd.DataFrame, domain: str):
    """(measure, variant, its kind, [its columns]) of the table in the paper's terms: each zero-shot
    column, each column of a variant the paper printed a figure of (noisy, visual), and each
    measure's answer orders together (the paper's figure is their mean)."""
    cols = set(table.columns)
    for m in measures.measure_ids(domain):
        if m in cols:
            yield m, "zero_shot", "zero_shot", [m]
        by_kind: dict[str, list[str]] = {}
        for c in table.columns:
            if c.startswith(f"{m}@") and re.fullmatch(name_pattern(), c.split("@", 1)[1]):  # not its _n, _ci_low
                by_kind.setdefault(kind(c.split("@", 1)[1]), []).append(c)
        for k, found in by_kind.items():
            if k in experiments.PRINTED_BY_KIND and len(found) == experiments.PRINTED_BY_KIND[k][2]:
                yield m, (found[0].split("@", 1)[1] if len(found) == 1 else f"{k} (mean of {len(found)})"), k, found


def _ours(r, cols: list[str]) -> dict | None:
    """Our figure of one cell (the mean over `cols`: an interval only for one column)."""
    values = [r[c] for c in cols]
    if any(pd.isna(v) for v in values):
        return None
    one = len(cols) == 1
    n = r.get(f"{cols[0]}_n")
    return {"ours": float(sum(values) / len(values)), "ci_low": r.get(f"{cols[0]}_ci_low") if one else None,
            "ci_high": r.get(f"{cols[0]}_ci_high") if one else None, "n": None if n is None or pd.isna(n) else int(n)}


def comparison(table: pd.DataFrame, scores: list[dict], domain: str, paper_dataset: str | None,
               paper_names: dict[str, str | None]) -> pd.DataFrame:
    """`table`: the results .csv (a value column per `<measure>[@variant]`, `<column>_ci_low`, ...).
    `paper_names`: our model -> its paper row (None: not in the paper). One row per cell the paper
    has, in the table's row and column order: the zero-shot cells (Tables 2, 3, 22, 5, 23, 25) and
    the ablation cells it printed (noisy, Table 23; LlaVA-1.6 shown the image, Table 4; the mean
    over five answer orders, Table 6)."""
    rows = []
    if paper_dataset not in paper.RESULTS_TABLE:
        return pd.DataFrame(columns=COLUMNS)
    counts = paper.question_counts().get(paper_dataset, {})
    missed = {(s["model"], column_name(s["measure"], s["variant"])): s["missed"] / s["n"] for s in scores
              if s.get("n")}
    cells = list(_cells(table, domain))
    for _, r in table.iterrows():
        name = paper_names.get(r["model"])
        if not name:
            continue
        for m, variant, k, cols in cells:
            found = (paper.zero_shot_figure(paper_dataset, name, m) if k == "zero_shot" else
                     experiments.printed_figure(paper_dataset, name, m, k))
            ours = _ours(r, cols) if found is not None else None
            if ours is None:
                continue
            source, fig = found
            lo, hi = ours["ci_low"], ours["ci_high"]
            rows.append({
                "model": r["model"], "paper_name": name, "paper_table": source, "measure": m, "variant": variant,
                "column": cols[0] if len(cols) == 1 else None,
                "metric": METRIC_LABEL[measures.get(domain, m).primary_metric], **ours, "paper": fig,
                "paper_n": counts.get(m), "diff": ours["ours"] - fig,
                "inside": None if lo is None or pd.isna(lo) else bool(lo - 1e-9 <= fig <= hi + 1e-9),
                "missed_rate": missed.get((r["model"], cols[0])) if len(cols) == 1 else None,
                "paper_missed_rate": paper.figure(paper_dataset, name, m, "missed_rate")
                if variant == "zero_shot" else None})
    return pd.DataFrame(rows, columns=COLUMNS)


def _mark(inside) -> str:
    return "" if inside is None or pd.isna(inside) else (INSIDE if inside else OUTSIDE)


def _f(v, fmt="{:.4f}") -> str:
    return "" if v is None or pd.isna(v) else fmt.format(v)


def title(dataset: str, paper_dataset: str | None) -> str:
    if paper_dataset not in paper.RESULTS_TABLE:
        return f"{dataset} beside the LRWorld paper"
    return (f"{dataset} beside the LRWorld paper (its Table {paper.RESULTS_TABLE[paper_dataset]}, "
            f"LRWorld-{PAPER_DATASET_LABEL[paper_dataset]})")


def legend(confidence: float) -> str:
    return (f"{INSIDE}: the paper's figure lies inside our {confidence:.0%} interval (percentile bootstrap over our "
            f"questions); {OUTSIDE}: outside. The paper's figures are over its own data and question counts (n paper, "
            "from its Tables 12-14); RANDOM's are the expected values of a uniform pick (1/10, 1/4). Missed rates: "
            "its Tables 19-21 (none for RANDOM).")


def to_markdown(comp: pd.DataFrame, dataset: str, paper_dataset: str | None, confidence: float = 0.95) -> str:
    """The long listing: every cell, ours [CI] beside the paper's."""
    lines = [f"# {title(dataset, paper_dataset)}", ""]
    if comp.empty:
        why = ("the paper reports no results table for it" if paper_dataset not in paper.RESULTS_TABLE
               else "no model of the run has a paper row (`paper_name`)")
        return "\n".join(lines + [f"No cell to compare: {why}.", ""])
    head = ["model", "paper row", "measure", "variant", "table", "metric", "ours [CI]", "n", "paper", "n paper",
            "ours − paper", "inside", "missed", "missed paper"]
    body = ([r.model, r.paper_name, r.measure, r.variant, r.paper_table, r.metric,
             f"{r.ours:.4f}" + ("" if r.ci_low is None or pd.isna(r.ci_low) else f" [{_f(r.ci_low)}, {_f(r.ci_high)}]"),
             _f(r.n, "{:.0f}"), f"{r.paper:.4f}", _f(r.paper_n, "{:.0f}"), f"{r.diff:+.4f}", _mark(r.inside),
             _f(r.missed_rate), _f(r.paper_missed_rate)] for r in comp.itertuples())
    inside = comp["inside"].dropna()
    summary = f"{int(inside.sum())} of {len(inside)} of the paper's figures lie inside our interval."
    return "\n".join(lines + pipe_table(head, body, right=[False] * 6 + [True] * 8)
                     + ["", summary, "", legend(confidence), ""])


def beside_section(comp: pd.DataFrame, table: pd.DataFrame, paper_dataset: str | None,
                   confidence: float = 0.95) -> list[str]:
    """The results table's section of the paper's figures: one row per model with a paper row, a
    column per measure, each cell the paper's figure and whether it lies inside our interval."""
    if comp.empty:
        return []
    cols = [c for c in table.columns[1:] if c in set(comp["column"].dropna())]
    cell = {(r.model, r.column): f"{r.paper:.4f} {_mark(r.inside)}".strip() for r in comp.itertuples()}
    models = list(dict.fromkeys(comp["model"]))
    rows = ([f"{m} ({comp.loc[comp['model'] == m, 'paper_name'].iloc[0]})"] + [cell.get((m, c), "") for c in cols]
            for m in models)
    t = paper.RESULTS_TABLE[paper_dataset]
    others = sorted(set(comp["paper_table"]) - {t}, key=int)
    also = f"; Table{'s' * (len(others) > 1)} {', '.join(others)} for rows and ablations it lacks" if others else ""
    return ([f"## The paper's figures (its Table {t}{also}, LRWorld-{PAPER_DATASET_LABEL[paper_dataset]})", ""]
            + pipe_table(["model (paper row)"] + cols, rows, right=[False] + [True] * len(cols))
            + ["", legend(confidence) + " Every cell beside ours: the `.paper.md` beside this table.", ""])
