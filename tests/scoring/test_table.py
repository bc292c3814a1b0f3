"""The results table's degenerate marks and position-debiased figures (issue 14)."""

import io

import pandas as pd

from lrworld.scoring.table import marks, results_table, to_markdown, with_marks


def _s(model, measure, variant, value, degenerate=False, debiased=None):
    return {"model": model, "measure": measure, "variant": variant, "value": value, "degenerate": degenerate,
            "debiased": debiased}


SCORES = [
    _s("random", "attr_genre", "zero_shot", 0.24),
    _s("random", "attr_genre", "shuffle1", 0.30),
    _s("random", "attr_genre", "shuffle2", 0.21),
    _s("smol", "attr_genre", "zero_shot", 0.26, degenerate=True, debiased=0.25),
    _s("smol", "attr_genre", "shuffle1", 0.22, degenerate=True, debiased=0.24),
    _s("smol", "attr_genre", "shuffle2", 0.25, degenerate=True, debiased=0.26),
    _s("smol", "assoc_rule", "zero_shot", 0.10),
]


def test_flags_and_debiased_figures():
    table = results_table(SCORES, "movie", ["random", "smol"])
    degenerate, debiased = marks(SCORES, table)
    assert degenerate.set_index("model").loc["smol", "attr_genre"] == True  # noqa: E712
    assert degenerate.set_index("model").loc["random", "attr_genre"] == False  # noqa: E712
    d = debiased.set_index("model")
    # choice mode: the score's own PriDe figure
    assert d.loc["smol", "attr_genre"] == 0.25 and d.loc["smol", "attr_genre@shuffle1"] == 0.24
    # no log-probabilities: the mean over the answer orders (zero_shot, shuffle1, shuffle2)
    assert abs(d.loc["random", "attr_genre"] - (0.24 + 0.30 + 0.21) / 3) < 1e-12
    assert d.loc["random", "attr_genre@shuffle2"] == d.loc["random", "attr_genre"]
    # a single order and no log-probabilities: no debiased figure
    assert pd.isna(d.loc["smol", "assoc_rule"])


def test_csv_and_markdown_layout():
    table = results_table(SCORES, "movie", ["random", "smol"])
    degenerate, debiased = marks(SCORES, table)
    csv = with_marks(table, degenerate, debiased).to_csv(index=False, float_format="%.4f")
    back = pd.read_csv(io.StringIO(csv))
    cols = list(table.columns[1:])
    assert list(back.columns) == ["model"] + cols + [c + "_degenerate" for c in cols] + [c + "_debiased" for c in cols]
    assert back.set_index("model").loc["smol", "attr_genre_degenerate"] == True  # noqa: E712
    md = to_markdown(table, "ml", degenerate, debiased)
    assert "| smol | 0.1000 | 0.2600\u2020 |" in md and "| random |  | 0.2400 |" in md
    assert "\u2020 degenerate: the model chose one answer slot for more than 80% of the questions" in md
    assert "## Position-debiased" in md and "| random |  | 0.2500 |" in md
    plain = to_markdown(table, "ml")
    assert "\u2020" not in plain and "Position-debiased" not in plain
