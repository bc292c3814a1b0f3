"""Results tables laid out like the paper's Table 3: one row per model (RANDOM first), one column
per measure in the registry's order, each cell the measure's primary metric.

Beside the values (issue 14): `<column>_degenerate` (the model chose one slot for more than 80% of
the questions; the .md marks the cell with †) and `<column>_debiased` (the position-debiased
figure: the score's PriDe prior correction in choice mode, else the mean over the cell's answer
orders, zero_shot and every shuffle<s> variant, when shuffle variants exist).
"""

from __future__ import annotations

import re

import pandas as pd

from lrworld.questions import measures

DAGGER = "\u2020"
_ORDERS = re.compile(r"^(zero_shot|shuffle\d+)$")


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


def _debiased(s: dict, scores: list[dict]) -> float | None:
    if s.get("debiased") is not None:
        return s["debiased"]
    if not _ORDERS.match(s["variant"]):
        return None
    orders = [o["value"] for o in scores if o["model"] == s["model"] and o["measure"] == s["measure"]
              and _ORDERS.match(o["variant"])]
    return sum(orders) / len(orders) if len(orders) > 1 else None


def marks(scores: list[dict], table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(degenerate flags, debiased figures), both shaped like `table` (model column first)."""
    cols = list(table.columns[1:])
    degenerate = pd.DataFrame({"model": table["model"], **{c: False for c in cols}})
    debiased = pd.DataFrame({"model": table["model"], **{c: float("nan") for c in cols}})
    for s in scores:
        row, col = table["model"] == s["model"], column_name(s["measure"], s["variant"])
        degenerate.loc[row, col] = bool(s.get("degenerate", False))
        value = _debiased(s, scores)
        debiased.loc[row, col] = float("nan") if value is None else value
    return degenerate, debiased


def with_marks(table: pd.DataFrame, degenerate: pd.DataFrame, debiased: pd.DataFrame) -> pd.DataFrame:
    """The .csv layout: the value columns, then `<column>_degenerate`, then `<column>_debiased`."""
    cols = list(table.columns[1:])
    return pd.concat([table, degenerate[cols].add_suffix("_degenerate"), debiased[cols].add_suffix("_debiased")],
                     axis=1)


def _rows(table: pd.DataFrame, flags: pd.DataFrame | None = None) -> list[str]:
    header = "| " + " | ".join(table.columns) + " |"
    sep = "|" + "|".join("---" if c == "model" else "---:" for c in table.columns) + "|"
    lines = [header, sep]
    for i, row in table.iterrows():
        cells = [str(row["model"])]
        for c in table.columns[1:]:
            v = row[c]
            mark = DAGGER if flags is not None and bool(flags.at[i, c]) else ""
            cells.append("" if pd.isna(v) else f"{v:.4f}{mark}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def to_markdown(table: pd.DataFrame, title: str, degenerate: pd.DataFrame | None = None,
                debiased: pd.DataFrame | None = None) -> str:
    lines = [f"# {title}", ""] + _rows(table, degenerate)
    if degenerate is not None and degenerate.iloc[:, 1:].to_numpy().any():
        lines += ["", f"{DAGGER} degenerate: the model chose one answer slot for more than 80% of the questions, "
                      "so the cell is the share of answers that sit in that slot (`<column>_degenerate` in the .csv)."]
    if debiased is not None and debiased.iloc[:, 1:].notna().to_numpy().any():
        lines += ["", "## Position-debiased", "",
                  "Choice mode: PriDe prior correction of the label log-probabilities (Zheng et al. 2023), the prior "
                  "being the mean predicted label distribution over the cell's questions; otherwise the mean over "
                  "the answer orders (zero_shot and the shuffle<s> variants) when shuffle variants exist.", ""]
        lines += _rows(debiased)
    return "\n".join(lines) + "\n"
