"""The data one browser page shows, read from the graph's files: the results table (values,
intervals, marks), and per cell its score, its questions with the model's answers, its
provenance chain and the audit's findings for its measure."""

from __future__ import annotations

import math

import pandas as pd

from lrworld.core import io
from lrworld.questions import measures
from lrworld.prompts.variants import column_name
from lrworld.scoring.table import FIGURES, METRIC_LABEL, legend, value_columns


def _num(v):
    """A JSON-safe figure: NaN and NA become None, numpy scalars plain Python."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    return v.item() if hasattr(v, "item") else v


def _status(parsed, answer_index) -> str:
    """As scoring counts it (lrworld.analysis.load): a missed answer names no option."""
    if parsed is None:
        return "missed"
    return "correct" if parsed == answer_index else "wrong"


def paper_cells(paper_csv: str | None) -> dict[str, dict]:
    """`<model>|<column>` -> the paper's figure of that cell (results/tables/<ds>.paper.csv; a mean
    over answer orders has no column of its own, and no cell here)."""
    if not paper_csv:
        return {}
    comp = pd.read_csv(paper_csv)
    comp = comp[comp["column"].notna()]
    return {f"{r['model']}|{r['column']}": {
        "paper_name": r["paper_name"], "paper_table": str(r["paper_table"]), "value": _num(r["paper"]),
        "diff": _num(r["diff"]), "inside": None if pd.isna(r["inside"]) else bool(r["inside"]),
        "n": _num(r["paper_n"]), "missed_rate": _num(r["paper_missed_rate"])} for _, r in comp.iterrows()}


def page_data(dataset: str, domain: str, table_csv: str, score_files: list[str], audit_file: str,
              paper_csv: str | None = None) -> dict:
    table = pd.read_csv(table_csv)
    paper = paper_cells(paper_csv)
    value_cols = value_columns(table)
    scores = [io.read_json(f) for f in score_files]
    by_cell = {(s["model"], column_name(s["measure"], s["variant"])): s for s in scores}
    columns = []
    for c in value_cols:
        measure, _, variant = c.partition("@")
        me = measures.get(domain, measure)
        columns.append({"name": c, "measure": measure, "variant": variant or "zero_shot", "scale": me.scale,
                        "factor": me.factor, "metric": METRIC_LABEL.get(me.primary_metric, me.primary_metric)})
    cells, prompts = {}, {}
    for _, row in table.iterrows():
        for c in value_cols:
            s = by_cell.get((row["model"], c))
            if s is None:
                continue
            key = (s["measure"], s["variant"])
            if key not in prompts:  # shared by every model's cell of the column
                path = f"results/prompts/{dataset}/{s['measure']}/{s['variant']}.jsonl"
                prompts[key] = {p["qid"]: {"prompt": p["prompt"], "candidates": p.get("candidates", []),
                                           "labels": p.get("labels", []), "answer_index": p.get("answer_index")}
                                for p in io.read_jsonl(path)}
            answers = [{"qid": r["qid"], "raw_text": r.get("raw_text"), "parsed": r.get("parsed"),
                        "label_logprobs": r.get("label_logprobs"),
                        "status": _status(r.get("parsed"), r["answer_index"])} for r in io.read_jsonl(s["responses"])]
            chain = io.read_json(s["provenance"]).get("chain", [])
            cells[f"{row['model']}|{c}"] = {
                "model": row["model"], "column": c, "measure": s["measure"], "variant": s["variant"],
                **{f: _num(row.get(f"{c}_{f}")) for f in FIGURES}, "value": _num(row[c]),
                "score": {k: s.get(k) for k in ("n", "correct", "missed", "value", "primary_metric", "degenerate",
                                                "top_slot", "top_slot_share", "debiased")},
                "paper": paper.get(f"{row['model']}|{c}"),
                "score_file": f"results/scores/{dataset}/{row['model']}/{s['measure']}/{s['variant']}.json",
                "answers": answers,
                "provenance": {"record": s["provenance"], "chain": [
                    {k: n.get(k) for k in ("role", "path", "rule", "sha256", "note")} for n in chain]},
            }
    audit = io.read_json(audit_file)
    return {
        "dataset": dataset, "domain": domain, "models": [str(m) for m in table["model"]], "columns": columns,
        "cells": cells,
        "prompts": {f"{m}|{v}": qs for (m, v), qs in prompts.items()},
        "audit": {"file": audit_file, "passed": audit.get("passed"), "violations": audit.get("violations"),
                  "measures": audit.get("measures", {})},
    }


def table_legend(data: dict, n_boot: int, confidence: float, seed: int) -> list[str]:
    """The results table's legend for this page's cells (seed: the bootstrap's, named for the record)."""
    cells = data["cells"].values()
    out = legend(confidence, n_boot, any(c["significant_vs_random"] is not None for c in cells),
                 any(c["degenerate"] for c in cells), csv_names=False) + [f"Bootstrap seed {seed}."]
    tables = sorted({c["paper"]["paper_table"] for c in cells if c.get("paper")})
    if tables:
        out.append(f"Under a cell: the LRWorld paper's figure (its Table {', '.join(tables)}) for the model's paper row, "
                   f"\u2713 inside our {confidence:.0%} interval, \u2717 outside; its figures are over its own data "
                   "(RANDOM's: the expected value of a uniform pick).")
    return out
