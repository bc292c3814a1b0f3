"""Hand-computed fixtures for the bootstrap interval and the paired bootstrap."""

import numpy as np
import pytest

from lrworld.analysis.bootstrap import align, bootstrap_ci, paired_bootstrap, percentile_ci


def test_ci_from_an_explicit_resample_matrix():
    # values [1,0,1,1]; five resamples by hand: means 1, 0, .75, .5, .25
    idx = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 2, 3], [1, 1, 2, 3], [0, 1, 1, 1]])
    ci = bootstrap_ci([1, 0, 1, 1], idx=idx)
    # sorted [0, .25, .5, .75, 1]: 2.5th pct at rank .1 -> .025; 97.5th at rank 3.9 -> .975 (linear)
    assert ci == {"n": 4, "mean": 0.75, "ci_low": pytest.approx(0.025), "ci_high": pytest.approx(0.975)}


def test_ci_matches_the_exact_bootstrap_distribution():
    # resampled correct count of [1,1,1,0] ~ Binomial(4, .75): P(0)=.0039, P(<=1)=.051, P(4)=.316,
    # so the 2.5th percentile is 1/4 and the 97.5th is 4/4
    ci = bootstrap_ci([1, 1, 1, 0], n_boot=20000, rng=np.random.default_rng(7))
    assert (ci["ci_low"], ci["ci_high"]) == (0.25, 1.0)


def test_ci_is_seeded_and_degenerate_cases():
    a = bootstrap_ci([1, 0] * 20, 500, rng=np.random.default_rng(3))
    b = bootstrap_ci([1, 0] * 20, 500, rng=np.random.default_rng(3))
    assert a == b and a["ci_low"] < 0.5 < a["ci_high"]
    assert bootstrap_ci([1, 1, 1], 200)["ci_low"] == 1.0
    assert bootstrap_ci([], 200)["n"] == 0
    assert percentile_ci(np.array([0.0, 1.0]), 0.5) == (0.25, 0.75)


def test_paired_bootstrap_by_hand():
    a, b = [1, 1, 0, 1], [0, 1, 0, 0]  # d = [1,0,0,1], mean .5
    idx = np.array([[0, 0, 0, 0], [1, 2, 1, 2], [0, 1, 2, 3], [0, 3, 0, 3], [1, 1, 1, 3]])  # 1, 0, .5, 1, .25
    r = paired_bootstrap(a, b, idx=idx)
    assert r["diff"] == 0.5 and r["n"] == 4
    assert r["ci_low"] == pytest.approx(0.025) and r["ci_high"] == pytest.approx(1.0)
    assert r["significant"] is True
    assert r["p_value"] == pytest.approx(0.4)  # 2 * min(P(<=0)=.2, P(>=0)=1)


def test_paired_bootstrap_marks_a_significantly_worse_system():
    # the same questions as above with the systems swapped: d = [-1,0,0,-1], mean -.5; a system
    # worse than random on every resample is as significant as a better one
    a, b = [0, 1, 0, 0], [1, 1, 0, 1]
    idx = np.array([[0, 0, 0, 0], [1, 2, 1, 2], [0, 1, 2, 3], [0, 3, 0, 3], [1, 1, 1, 3]])  # -1, 0, -.5, -1, -.25
    r = paired_bootstrap(a, b, idx=idx)
    # sorted [-1, -1, -.5, -.25, 0]: 2.5th pct at rank .1 -> -1; 97.5th at rank 3.9 -> -.025 (linear)
    assert r["diff"] == -0.5 and r["ci_low"] == pytest.approx(-1.0) and r["ci_high"] == pytest.approx(-0.025)
    assert r["significant"] is True
    assert r["p_value"] == pytest.approx(0.4)  # 2 * min(P(<=0)=1, P(>=0)=.2)


def test_paired_bootstrap_same_answers_is_not_significant():
    r = paired_bootstrap([1, 0, 1], [1, 0, 1], 300)
    assert (r["diff"], r["ci_low"], r["ci_high"], r["significant"]) == (0.0, 0.0, 0.0, False)
    with pytest.raises(ValueError):
        paired_bootstrap([1], [1, 0])


def test_align_uses_common_question_ids_in_order():
    assert align({"q2": 1, "q1": 0, "q9": 1}, {"q1": 1, "q2": 1}) == (["q1", "q2"], [0, 1], [1, 1])
