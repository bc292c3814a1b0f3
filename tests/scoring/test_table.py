"""The results table: values with n, bootstrap interval and the paired test against RANDOM,
degenerate marks and position-debiased figures, in .md, .csv and .tex."""

import io

import numpy as np
import pandas as pd

from lrworld.analysis.scores import paired_table, score_table
from lrworld.scoring.table import figures, marks, results_table, to_markdown, to_tex, uncertainty, with_marks


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


def test_random_with_one_answer_order_is_debiased_to_its_score_and_the_markdown_says_why():
    scores = [_s("random", "attr_genre", "zero_shot", 0.30), _s("smol", "attr_genre", "zero_shot", 0.24, debiased=0.28)]
    table = results_table(scores, "movie", ["random", "smol"])
    _, debiased = marks(scores, table)
    assert debiased.set_index("model").loc["random", "attr_genre"] == 0.30
    stats = uncertainty(_frame({("random", "attr_genre", "zero_shot"): [1, 0], ("smol", "attr_genre", "zero_shot"): [1, 0]}),
                        ["random", "smol"], 200, 0.95, 0)
    md = to_markdown(table, "t", "movie", figures(scores, table, stats))
    part = md.split("## Position-debiased")[1]
    assert "| random | 0.30 |" in part and "RANDOM, with one order: its score" in part


def _frame(cells: dict) -> pd.DataFrame:
    """Per-question rows from {(model, measure, variant): [correct, ...]} (question i is q<i>)."""
    rows = [{"model": m, "measure": me, "variant": v, "qid": f"q{i:02d}", "answer_index": 0,
             "parsed": 0 if c else 1, "correct": c, "missed": 0}
            for (m, me, v), cs in cells.items() for i, c in enumerate(cs)]
    return pd.DataFrame(rows)


# 20 attr_genre questions: smol right on all, random on 5 (a clear difference); assoc_rule: the
# same 10 answers for both (no difference), and smol answered only 8 of assoc_rule's cot questions
CELLS = {("random", "attr_genre", "zero_shot"): [1] * 5 + [0] * 15, ("smol", "attr_genre", "zero_shot"): [1] * 20,
         ("random", "assoc_rule", "zero_shot"): [1, 0] * 5, ("smol", "assoc_rule", "zero_shot"): [1, 0] * 5,
         ("random", "assoc_rule", "cot"): [1, 0] * 5, ("smol", "assoc_rule", "cot"): [0] * 8}
CELL_SCORES = [_s("random", "attr_genre", "zero_shot", 0.25), _s("smol", "attr_genre", "zero_shot", 1.0, True),
               _s("random", "assoc_rule", "zero_shot", 0.5), _s("smol", "assoc_rule", "zero_shot", 0.5),
               _s("random", "assoc_rule", "cot", 0.5), _s("smol", "assoc_rule", "cot", 0.0)]


def _built():
    frame = _frame(CELLS)
    table = results_table(CELL_SCORES, "movie", ["random", "smol"])
    stats = uncertainty(frame, ["random", "smol"], n_boot=1000, confidence=0.95, seed=3)
    return frame, table, stats, figures(CELL_SCORES, table, stats)


def test_intervals_and_paired_test_equal_the_analysis_and_hand_values():
    frame, table, stats, figs = _built()
    s = stats.set_index(["model", "measure", "variant"])
    # the analysis' own tables, same seeds: the same numbers
    ref = score_table(frame, 1000, 0.95, 3).set_index(["model", "measure", "variant"])
    pd.testing.assert_frame_equal(s[["n", "ci_low", "ci_high"]], ref[["n", "ci_low", "ci_high"]])
    pr = paired_table(frame, ["random", "smol"], 1000, 0.95, 3)
    row = pr[(pr["a"] == "smol") & (pr["b"] == "random") & (pr["measure"] == "attr_genre")].iloc[0]
    assert s.loc[("smol", "attr_genre", "zero_shot"), "p_vs_random"] == row["p_value"]
    # hand values: all 20 right -> every resample's mean is 1; the difference is 1 - 0.25 everywhere
    # random is wrong, and every resample keeps it positive
    assert (s.loc[("smol", "attr_genre", "zero_shot"), ["n", "ci_low", "ci_high"]] == [20, 1.0, 1.0]).all()
    assert s.loc[("smol", "attr_genre", "zero_shot"), "diff_vs_random"] == 0.75
    assert bool(s.loc[("smol", "attr_genre", "zero_shot"), "significant_vs_random"])
    # identical answers: difference 0 in every resample, p = 1, not significant
    same = s.loc[("smol", "assoc_rule", "zero_shot")]
    assert same["diff_vs_random"] == 0.0 and same["p_vs_random"] == 1.0 and not same["significant_vs_random"]
    assert pd.isna(s.loc[("random", "attr_genre", "zero_shot"), "diff_vs_random"])  # random vs itself: none
    # 0.5 over 10 questions: the interval is the 2.5 and 97.5 percentiles of the resampled means
    rng_ci = s.loc[("random", "assoc_rule", "zero_shot"), ["ci_low", "ci_high"]].to_numpy()
    assert 0.1 <= rng_ci[0] < 0.5 < rng_ci[1] <= 0.9 and np.isclose(rng_ci * 10, np.round(rng_ci * 10)).all()


def test_csv_has_a_column_per_figure():
    _, table, _, figs = _built()
    back = pd.read_csv(io.StringIO(with_marks(table, figs).to_csv(index=False, float_format="%.4f")))
    cols = list(table.columns[1:])
    assert cols == ["assoc_rule", "attr_genre", "assoc_rule@cot"]
    assert list(back.columns) == ["model"] + cols + [f"{c}_{f}" for f in (
        "degenerate", "debiased", "n", "ci_low", "ci_high", "diff_vs_random", "p_vs_random",
        "significant_vs_random") for c in cols]
    smol = back.set_index("model").loc["smol"]
    assert (smol["attr_genre"], smol["attr_genre_n"], smol["attr_genre_ci_low"], smol["attr_genre_diff_vs_random"]) == (
        1.0, 20, 1.0, 0.75)
    assert smol["attr_genre_significant_vs_random"] == True and smol["attr_genre_degenerate"] == True  # noqa: E712
    assert smol["assoc_rule@cot_n"] == 8 and pd.isna(back.set_index("model").loc["random", "attr_genre_p_vs_random"])


def test_markdown_shows_interval_n_metric_and_marks():
    _, table, stats, figs = _built()
    md = to_markdown(table, "ml", "movie", figs)
    lines = md.splitlines()
    assert lines[2] == "| model | assoc_rule | attr_genre | assoc_rule@cot |"
    assert lines[4] == "| metric (n) | HitRate@1 (n=10) | Accuracy (n=20) | HitRate@1 (n=10) |"
    lo, hi = stats.set_index(["model", "measure", "variant"]).loc[("random", "attr_genre", "zero_shot"),
                                                                   ["ci_low", "ci_high"]]
    # smol's cot cell has 8 questions, not the column's 10: it says so
    assert lines[5].startswith(f"| random | 0.50 [") and f"| 0.25 [{lo:.2f}, {hi:.2f}] |" in lines[5]
    assert lines[6].startswith("| smol | 0.50 [") and "| 1.00 [1.00, 1.00]\u2020\\* |" in lines[6]
    assert lines[6].endswith("| 0.00 [0.00, 0.00] n=8\\* |")  # 0 of 8 vs 5 of 10: significant too
    assert "`*` differs from random: the 95% interval of the paired bootstrap difference" in md
    assert "\u2020 degenerate: the model chose one answer slot for 80% of the questions or more" in md
    assert "Position-debiased" not in md


def test_position_debiased_section():
    table = results_table(SCORES, "movie", ["random", "smol"])
    stats = uncertainty(_frame({("random", "attr_genre", v): [1, 0] for v in ("zero_shot", "shuffle1", "shuffle2")}),
                        ["random", "smol"], 200, 0.95, 0)
    md = to_markdown(table, "ml", "movie", figures(SCORES, table, stats))
    assert "## Position-debiased" in md and "| random |  | 0.25 | 0.25 | 0.25 |" in md
    assert "| smol | 0.10 | 0.26\u2020 |" in md  # no per-question records: the value alone


def test_tex_is_booktabs_with_the_marks_as_symbols():
    _, table, _, figs = _built()
    tex = to_tex(table, "ml_100k", "movie", figs)
    assert r"\begin{tabular}{lrrr}" in tex and tex.count(r"\toprule") == tex.count(r"\bottomrule") == 1
    assert r"\midrule" in tex and r"\label{tab:results-ml-100k}" in tex
    assert r"smol & 0.50 [" in tex and r"1.00 [1.00, 1.00]\textsuperscript{\dag}* & 0.00 [0.00, 0.00] n=8* \\" in tex
    assert r"metric (n) & HitRate@1 (n=10) & Accuracy (n=20)" in tex
    assert "\u2020" not in tex and r"\multicolumn{2}" not in tex  # association, knowledgeability, association


def test_without_a_random_row_there_is_no_test_and_no_star():
    frame = _frame({k: v for k, v in CELLS.items() if k[0] == "smol"})
    scores = [s for s in CELL_SCORES if s["model"] == "smol"]
    table = results_table(scores, "movie", ["smol"])
    figs = figures(scores, table, uncertainty(frame, ["smol"], 200, 0.95, 3))
    assert figs["significant_vs_random"].iloc[:, 1:].isna().all().all()
    md = to_markdown(table, "ml", "movie", figs)
    assert "differs from random" not in md and "| smol | 0.50 [" in md and "\\*" not in md


def test_a_short_measure_is_marked_with_its_reason_in_the_caption():
    _, table, _, figs = _built()
    why = {"neu_user2items": "137 of 200 questions: 400 targets tried (dropped_margin 201)"}
    md = to_markdown(table, "ml", "movie", figs, short=why)
    assert ("§ short measures (fewer questions than asked): neu_user2items: 137 of 200 questions: 400 targets "
            "tried (dropped_margin 201).") in md
    assert "short measures" not in to_markdown(table, "ml", "movie", figs)
    tex = to_tex(table, "ml_100k", "movie", figs, short=why)
    assert r"short measures (fewer questions than asked): neu\_user2items: 137 of 200" in tex


def test_witness_shares_and_short_measures_are_marked_in_the_md_tex_and_csv():
    from lrworld.questions.witnesses import from_reports
    from lrworld.scoring.table import with_marks

    _, table, _, figs = _built()
    reports = [{"measure": "attr_genre", "questions": 20, "requested": 20,
                "facts": {"witnesses": {"1": 20}, "sources": {"ml-100k": 20}}, "skipped": {}},
               {"measure": "assoc_rule", "questions": 10, "requested": 50,
                "short": {"reason": "10 of 50 questions: 80 targets tried (dropped_margin 70)"}}]
    witnessed = from_reports(reports)
    short = {"assoc_rule": reports[1]["short"]["reason"]}
    md = to_markdown(table, "ml", "movie", figs, short=short, witnessed=witnessed)
    # the metric row carries each column's marks; the footnotes say why
    assert "| metric (n) | HitRate@1 (n=10)§ | Accuracy (n=20)‡ | HitRate@1 (n=10)§ |" in md
    assert ("‡ sources per gold (knowledge measures; a single-source gold is checked by no second source): "
            "attr_genre: 100% single-source (ml-100k).") in md
    tex = to_tex(table, "ml", "movie", figs, short=short, witnessed=witnessed)
    assert r"Accuracy (n=20)\textsuperscript{\ddag}" in tex and "100\\% single-source (ml-100k)" in tex
    wide = with_marks(table, figs, reports)
    row = wide.iloc[0]
    assert row["attr_genre_single_source_share"] == 1.0 and row["attr_genre_gold_sources"] == "ml-100k"
    assert row["assoc_rule_requested"] == 50 and row["assoc_rule_short_reason"].startswith("10 of 50 questions")
    assert row["assoc_rule@cot_requested"] == 50 and pd.isna(row["attr_genre_short_reason"])
    assert pd.isna(row["assoc_rule_single_source_share"])  # no metadata source: not a knowledge measure
