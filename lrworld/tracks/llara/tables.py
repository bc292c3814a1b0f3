"""The LLaRA table: rows = models (LLMs and traditional recommenders), columns = dataset x metric,
with the paper's figures beside ours where the row and the dataset are the paper's."""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from lrworld.core.markdown import pipe_table
from lrworld.tracks.llara import paper

# (column suffix, summary key). First the paper's definition (over all questions), compared with
# the paper's column; the valid-only one beside it.
METRICS = (
    ("HitRatio@1", "hit_ratio_at_1_all"),
    ("HitRatio@1 sd", "hit_ratio_at_1_all_sd"),
    ("HitRatio@1 among valid", "hit_ratio_at_1_valid"),
    ("valid ratio", "valid_ratio"),
)

NOTES = """
HitRatio@1 = correct / all questions (an invalid answer is a miss): LLaRA's reported metric
(`hr * prediction_valid_ratio` in its code), compared with the paper's column. HitRatio@1 among
valid = correct / valid answers (LLaRA's `test_hr`). valid ratio = answers naming exactly one
candidate title / all questions. Traditional recommenders pick a candidate by index (always valid);
their figures are mean ± sample sd over `seeds` trainings, as the paper's (mean of 5 seeds).
LLaRA-trained rows (kind LLaRA(...) and the text-only LoRA) are trained on the base model their entry
names, mean ± sample sd over `seeds` trainings when there are several; the paper's figures beside them
are its Llama2-7B models in the same role. `paper` columns: arXiv 2312.02445 v4; `README` columns:
LLaRA's README (2024.7, after its code fixes), given for its LLaRA rows only; a released checkpoint
row is compared with the README's figures, which come with the released checkpoints.
"""


def _round(v) -> float | None:
    return None if v is None else round(float(v), 4)


def build_table(scores: dict[tuple[str, str], dict], kinds: dict[str, str] | None = None,
                paper_datasets: Mapping[str, str] | None = None,
                paper_rows: Mapping[str, str] | None = None) -> pd.DataFrame:
    """``scores[(model, dataset)]`` = a scoring summary. ``kinds[model]`` ("LLM"/"traditional")
    adds a ``kind`` column. ``paper_datasets[dataset]`` names the paper's dataset a dataset is
    (LLaRA's released sets); those get ``paper HitRatio@1`` / ``paper valid ratio`` columns, filled
    for the rows the paper has (:data:`lrworld.tracks.llara.paper.ROW_OF`, and ``paper_rows``:
    our row -> the paper's row in the same role, for LLaRA-trained rows). Missing cells stay
    empty. Rows and columns are sorted."""
    paper_datasets = paper_datasets or {}
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
                row[f"{d} {label}"] = None if s is None else _round(s.get(key))
            if d in paper_datasets:
                fig = paper.figures(m, paper_datasets[d], paper_rows)
                row[f"{d} paper HitRatio@1"] = fig[1] if fig else None
                row[f"{d} paper valid ratio"] = fig[0] if fig else None
                readme = paper.readme_figures(m, paper_datasets[d], paper_rows)
                row[f"{d} README HitRatio@1"] = readme[1] if readme else None
            row[f"{d} n"] = None if s is None else int(s["n_questions"])
            row[f"{d} seeds"] = None if s is None else int(s.get("n_seeds", 1))
        rows.append(row)
    return pd.DataFrame(rows)


def _cell(v, integer: bool = False) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return ""
    if integer:
        return str(int(v))
    return f"{v:.4f}" if isinstance(v, float) else str(v)


def to_markdown(df: pd.DataFrame) -> str:
    """Our table (HitRatio@1 cells as "mean ± sd" for seeded rows), its notes, then the paper's
    whole table for reference."""
    shown = df.copy().astype(object)
    for col in [c for c in df.columns if c.endswith(" HitRatio@1 sd")]:
        base = col[: -len(" sd")]
        shown[base] = [_cell(m) + (f" ± {sd:.4f}" if sd is not None and not pd.isna(sd) else "")
                       for m, sd in zip(df[base], df[col])]
        del shown[col]
    cols = list(shown.columns)
    counts = {c for c in cols if c.endswith((" n", " seeds"))}
    lines = pipe_table(cols, ([_cell(r[c], c in counts) for c in cols] for _, r in shown.iterrows()))
    return ("\n".join(lines) + "\n" + NOTES + f"\n## The paper's table ({paper.PAPER_SOURCE})\n\n" + paper.markdown()
            + f"\n## {paper.README_SOURCE}: LLaRA's rows after its code fixes\n\n" + paper.markdown(paper.README_RESULTS, "README"))
