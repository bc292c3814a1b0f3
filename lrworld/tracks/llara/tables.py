"""The LLaRA table: rows = models (LLMs and traditional recommenders), columns = dataset x metric."""

from __future__ import annotations

import pandas as pd

# (column suffix, summary key). HitRatio@1 first: LLaRA's definition (over valid answers).
METRICS = (
    ("HitRatio@1 (valid)", "hit_ratio_at_1_valid"),
    ("HitRatio@1 (all)", "hit_ratio_at_1_all"),
    ("valid ratio", "valid_ratio"),
)


def build_table(scores: dict[tuple[str, str], dict], kinds: dict[str, str] | None = None) -> pd.DataFrame:
    """``scores[(model, dataset)]`` = a scoring summary. ``kinds[model]`` ("LLM"/"traditional")
    adds a ``kind`` column. Missing cells stay empty. Rows and columns are sorted."""
    models = sorted({m for m, _ in scores}, key=lambda m: ((kinds or {}).get(m, ""), m))
    datasets = sorted({d for _, d in scores})
    rows = []
    for m in models:
        row: dict = {"model": m}
        if kinds is not None:
            row["kind"] = kinds.get(m, "")
        for d in datasets:
            s = scores.get((m, d))
            for label, key in METRICS:
                row[f"{d} {label}"] = None if s is None else round(float(s[key]), 4)
            row[f"{d} n"] = None if s is None else int(s["n_questions"])
        rows.append(row)
    return pd.DataFrame(rows)


def to_markdown(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, r in df.iterrows():
        cells = []
        for c in cols:
            v = r[c]
            if v is None or (isinstance(v, float) and pd.isna(v)):
                cells.append("")
            elif isinstance(v, float):
                cells.append(f"{v:.4f}")
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    notes = ("\nHitRatio@1 (valid) = correct / valid answers (LLaRA's code and tables); HitRatio@1 (all) = "
             "correct / all questions (eval card recipe); valid ratio = answers naming exactly one candidate "
             "title / all questions. Traditional recommenders pick a candidate by index (always valid).\n")
    return "\n".join(lines) + "\n" + notes
