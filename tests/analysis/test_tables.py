"""Popularity split, slot distribution, position bias, relative changes and the table writers,
on hand-computed fixtures."""

import numpy as np
import pandas as pd
import pytest

from lrworld.analysis import ablation
from lrworld.analysis.load import model_order
from lrworld.analysis.output import to_latex, write_table
from lrworld.analysis.popularity import nonpop_shares, popularity_split
from lrworld.analysis.position import position_bias, slot_distribution
from lrworld.analysis.bootstrap import resample_indices
from lrworld.analysis.scores import paired_table, paper_table, score_table
from lrworld.core.seeding import rng_for


def test_popularity_split_and_shares_by_hand():
    inter = pd.DataFrame({"item_id": ["a"] * 4 + ["b"] * 4 + ["c", "d"]})
    split, thr = popularity_split(inter)
    # log counts: log 4, log 4, 0, 0 -> mean log 2
    assert thr == pytest.approx(np.log(2))
    assert split == {"a": "POP", "b": "POP", "c": "NON-POP", "d": "NON-POP"}
    frame = pd.DataFrame({"model": "m", "measure": "x", "variant": "zero_shot",
                          "qid": ["q1", "q2", "q3", "q4", "q5"], "correct": [1, 0, 1, 0, 0]})
    target = {"q1": "a", "q2": "c", "q3": "d", "q4": "b", "q5": "c"}
    (row,) = nonpop_shares(frame, target, split).to_dict("records")
    # errors q2 (c), q4 (b), q5 (c): 2 of 3 NON-POP; correct q1 (a), q3 (d): 1 of 2
    assert row["nonpop_share_errors"] == pytest.approx(2 / 3)
    assert row["nonpop_share_correct"] == pytest.approx(1 / 2)
    assert (row["errors"], row["correct"], row["nonpop_questions"]) == (3, 2, 3)


def test_slot_distribution_by_hand():
    recs = [{"answer_index": i, "candidates": list("wxyz")} for i in (0, 0, 1, 3)]
    (row,) = slot_distribution(recs, "attr_genre").to_dict("records")
    assert [row[k] for k in "ABCD"] == [2, 1, 0, 1]
    assert [row[f"{k}_share"] for k in "ABCD"] == [0.5, 0.25, 0.0, 0.25]
    ten = [{"answer_index": 9, "candidates": list(range(10))}]
    assert slot_distribution(ten, "assoc_rule").iloc[0]["9"] == 1


def _scores(rows):
    return pd.DataFrame(rows, columns=["model", "measure", "variant", "value", "ci_low", "ci_high", "n"])


def test_position_bias_mean_and_sample_variance():
    s = _scores([("m", "x", v, val, 0, 1, 10) for v, val in
                 [("zero_shot", 0.25), ("shuffle1", 0.2), ("shuffle2", 0.3), ("shuffle10", 0.4)]])
    (row,) = position_bias(s).to_dict("records")
    assert row["mean"] == pytest.approx(0.3) and row["variance"] == pytest.approx(0.01)
    assert row["zero_shot"] == 0.25 and row["seeds"] == 3 and row["shuffle10"] == 0.4


def test_relative_change_tables():
    s = _scores([("small", "x", "zero_shot", 0.2, 0, 1, 10), ("big", "x", "zero_shot", 0.3, 0, 1, 10),
                 ("small", "x", "noisy", 0.1, 0, 1, 10), ("small", "x", "kshot", 0.4, 0, 1, 10),
                 ("small", "x", "kshot1", 0.3, 0, 1, 10)])
    paired = pd.DataFrame([{"kind": "variant", "measure": "x", "variant": "noisy", "a": "small@noisy",
                            "b": "small@zero_shot", "ci_low": -0.2, "ci_high": -0.01, "significant": True}])
    (n,) = ablation.noise_drop(s, paired).to_dict("records")
    assert n["rel_change"] == pytest.approx(-0.5) and n["significant"]
    (m,) = ablation.model_size(s, [{"small": "small", "large": "big"}, {"small": "small", "large": "off"}]).to_dict("records")
    assert m["rel_change"] == pytest.approx(0.5)
    curve = ablation.kshot_curve(s, 3)
    assert list(curve[curve["model"] == "small"]["k"]) == [0, 1, 3]
    assert np.isnan(ablation.rel_change(1.0, 0.0))


def test_paper_table_random_first_with_ci_and_marks():
    rows = []
    for model, correct in (("smol", [1] * 30), ("random", [0] * 30)):
        rows += [{"model": model, "measure": "attr_genre", "variant": "zero_shot", "qid": f"q{i:02d}", "correct": c,
                  "missed": 0, "parsed": 0 if c else 1} for i, c in enumerate(correct)]
    frame = pd.DataFrame(rows)
    scores = score_table(frame, 200, 0.95, 0)
    paired = paired_table(frame, ["smol", "random"], 200, 0.95, 0)
    (p,) = paired.to_dict("records")
    assert (p["a"], p["b"], p["diff"], p["significant"], p["agreement"]) == ("smol", "random", 1.0, True, 0.0)
    num, fmt, groups = paper_table(scores, paired, "movie", ["smol", "random"])
    assert list(num["model"]) == ["random", "smol"]
    assert fmt.loc[1, "attr_genre"] == "1.0000 [1.0000, 1.0000]*"
    assert num.loc[0, "attr_genre_n"] == 30
    assert groups == [("", 1), ("knowledgeability / <movie, genre>", 1)]
    tex = to_latex(fmt, "scores", "tab:s", groups)
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "attr\\_genre" in tex and "\\textless{}movie, genre\\textgreater{}" in tex


def test_write_table_four_formats(tmp_path):
    paths = write_table(pd.DataFrame({"a": [1.5], "b": ["x_y"]}), tmp_path / "t", "T", note="N")
    assert [p.rsplit(".", 1)[1] for p in paths] == ["csv", "md", "tex", "html"]
    assert "| 1.5000 | x_y |" in (tmp_path / "t.md").read_text()
    assert model_order(["b", "random", "a"]) == ["random", "b", "a"]


def test_agreement_of_two_answer_modes_by_hand():
    """The same questions answered twice (e.g. generate vs choice scoring): agreement is the share
    of questions with the same chosen option; a missed answer agrees with nothing."""
    parsed = {"gen": [0, 1, None, 3], "choice": [0, 1, 2, 2]}
    rows = [{"model": m, "measure": "attr_genre", "variant": "zero_shot", "qid": f"q{i}", "parsed": p,
             "correct": int(p == 0), "missed": int(p is None)} for m, ps in parsed.items() for i, p in enumerate(ps)]
    (p,) = paired_table(pd.DataFrame(rows), ["gen", "choice"], 100, 0.95, 0).to_dict("records")
    assert p["agreement"] == pytest.approx(2 / 4) and p["n"] == 4


def test_models_are_resampled_on_the_same_questions():
    """The resamples of a (dataset, measure) do not depend on the model's name: two models with the
    same answers get the same interval, and a model's interval and its paired difference to another
    come from the same resampled question sets (so mean(a) - mean(b) per resample is the paired one)."""
    rng = np.random.default_rng(7)
    same = rng.integers(0, 2, 40)
    other = rng.integers(0, 2, 40)
    rows = [{"dataset": "ml", "model": m, "measure": "attr_genre", "variant": "zero_shot", "qid": f"q{i:02d}",
             "correct": int(c), "missed": 0, "parsed": int(c)}
            for m, cs in (("alpha", same), ("zeta-other-name", same), ("random", other)) for i, c in enumerate(cs)]
    frame = pd.DataFrame(rows)
    s = score_table(frame, 300, 0.95, 0).set_index("model")
    assert (s.loc["alpha", "ci_low"], s.loc["alpha", "ci_high"]) == (
        s.loc["zeta-other-name", "ci_low"], s.loc["zeta-other-name", "ci_high"])
    idx = resample_indices(40, 300, rng_for(0, "bootstrap", "ml", "attr_genre"))
    lo, hi = np.percentile(same[idx].mean(axis=1), [2.5, 97.5])
    assert (s.loc["alpha", "ci_low"], s.loc["alpha", "ci_high"]) == pytest.approx((lo, hi))
    p = paired_table(frame, ["alpha", "zeta-other-name", "random"], 300, 0.95, 0)
    row = p[(p["a"] == "alpha") & (p["b"] == "random")].iloc[0]
    d_lo, d_hi = np.percentile((same - other)[idx].mean(axis=1), [2.5, 97.5])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((d_lo, d_hi))
