"""Results tables laid out like the paper's Table 3: one row per model (RANDOM first), one column
per measure in the registry's order, each cell the measure's primary metric."""

from __future__ import annotations

import pandas as pd

from lrworld.questions import measures


def column_name(measure: str, variant: str) -> str:
    return measure if variant == "zero_shot" else f"{measure}@{variant}"


def results_table(scores: list[dict], domain: str, models: list[str]) -> pd.DataFrame:
    order = measures.measure_ids(domain)
    variants = sorted({s["variant"] for s in scores}, key=lambda v: (v != "zero_shot", v))
    cols = [column_name(m, v) for v in variants for m in order
            if any(s["measure"] == m and s["variant"] == v for s in scores)]
    rows = sorted(models, key=lambda m: (m != "random", models.index(m)))
    table = pd.DataFrame({"model": rows})
    for c in cols:
        table[c] = float("nan")
    for s in scores:
        table.loc[table["model"] == s["model"], column_name(s["measure"], s["variant"])] = s["value"]
    return table


def to_markdown(table: pd.DataFrame, title: str) -> str:
    header = "| " + " | ".join(table.columns) + " |"
    sep = "|" + "|".join("---" if c == "model" else "---:" for c in table.columns) + "|"
    lines = [f"# {title}", "", header, sep]
    for _, row in table.iterrows():
        cells = [str(row["model"])] + ["" if pd.isna(v) else f"{v:.4f}" for v in row.iloc[1:]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
