"""The learned negative control: it finds a planted knowledge-free signal on questions it was not
trained on, and stays at chance where there is none."""

import numpy as np
import pytest

from lrworld.questions.learned import cross_validate, design, wilson
from lrworld.questions.option_features import OptionFeatures
from tests.support.planted import planted_table


def table(n: int, planted: float, seed: int = 0) -> OptionFeatures:
    """n questions of 10 options; in a share `planted` of them the gold has the largest year."""
    return planted_table(n, 10, "year", planted, seed)


def test_design_is_each_feature_against_its_questions_others():
    v = np.asarray([[[1.0], [2.0], [2.0], [5.0]]])  # one question, four options, one feature
    X = design(v)
    assert X[:, 0].tolist() == [-1.5, -0.5, -0.5, 2.5]  # minus the question's mean (2.5)
    assert X[:, 1].tolist() == [0.0, 0.5, 0.5, 1.0]  # rank share, ties sharing their mean rank


def test_a_planted_shortcut_is_found_on_held_out_questions():
    r = cross_validate(table(200, planted=0.6), seed=0, name="planted")
    assert r.above_chance and r.score > 0.5 and r.n == 200 and r.chance == 0.1
    assert r.leans_on and "year" in r.leans_on[0]
    # each question answered by a model that never saw it: the picks match the gold probabilities
    assert r.gold_probability.shape == (200,) and ((r.picks == table(200, 0.6).answers) == (r.correct > 0)).any()


def test_no_signal_stays_at_chance():
    r = cross_validate(table(200, planted=0.0), seed=0, name="none")
    assert not r.above_chance and r.ci_low <= 0.1 <= r.ci_high


def test_the_folds_are_named_so_another_name_draws_others():
    a = cross_validate(table(100, 0.3), seed=0, name="a").picks
    b = cross_validate(table(100, 0.3), seed=0, name="b").picks
    assert (a != b).any() and (a == cross_validate(table(100, 0.3), seed=0, name="a").picks).all()


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (21, 200)])
def test_wilson_equals_scipy(k, n):
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(method="wilson")
    assert wilson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)
