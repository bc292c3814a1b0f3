"""Hand-computed fixtures for every SRBench metric."""

import math

import pytest

from lrworld.tracks.srbench import metrics as M

LISTS = [["a", "b", "c"], ["d", "e", "f"]]
TARGETS = [{"b"}, {"x"}]
POP = {"a": 10, "b": 4, "c": 1, "d": 0, "e": 2, "f": 6}
QUAL = {"a": 5.0, "b": 3.0, "c": 4.0, "d": 2.0, "f": 1.0}  # e has no rating


def test_recall_and_ndcg_leave_one_out():
    assert M.recall_at_k(LISTS, TARGETS, 1) == 0.0
    assert M.recall_at_k(LISTS, TARGETS, 2) == 0.5
    # b at rank 2: 1/log2(3) for user 1, 0 for user 2
    assert M.ndcg_at_k(LISTS, TARGETS, 2) == pytest.approx((1 / math.log2(3)) / 2)
    assert M.ndcg_at_k([["b"]], [{"b"}], 5) == 1.0


def test_recall_and_ndcg_several_relevant():
    assert M.recall_at_k([["a", "b", "c"]], [{"a", "c"}], 2) == 0.5
    # DCG = 1 + 1/log2(4) = 1.5 ; IDCG = 1 + 1/log2(3)
    assert M.ndcg_at_k([["a", "b", "c"]], [{"a", "c"}], 3) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))


def test_arp():
    assert M.arp_at_k(LISTS, POP, 2) == pytest.approx(((10 + 4) / 2 + (0 + 2) / 2) / 2)  # 4.0
    assert M.arp_at_k(LISTS, POP, 3) == pytest.approx((15 / 3 + 8 / 3) / 2)
    # short list: mean over delivered items; empty list skipped
    assert M.arp_at_k([["a"], []], POP, 2) == 10.0
    assert math.isnan(M.arp_at_k([[]], POP, 2))


def test_arq_skips_unrated_items():
    # user 1: (5+3+4)/3 = 4 ; user 2: (2+1)/2 = 1.5 (e unrated)
    assert M.arq_at_k(LISTS, QUAL, 3) == pytest.approx(2.75)
    assert math.isnan(M.arq_at_k(LISTS, {}, 3))  # implicit data: no quality


def test_arqv_is_population_variance():
    # user 1 [5,3,4]: population var 2/3 (sample var would be 1); user 2 [2,1]: 0.25 (sample 0.5)
    got = M.arqv_at_k(LISTS, QUAL, 3)
    assert got == pytest.approx((2 / 3 + 0.25) / 2)
    assert got != pytest.approx((1.0 + 0.5) / 2)
    assert M.arqv_at_k([["a"]], QUAL, 3) == 0.0


def test_arr_union_and_pairwise():
    runs = [[["a", "b"]], [["a", "c"]], [["d", "e"]]]  # T=3, one user, K=2
    # union: Rep = 1, 1, 0 -> 2 / (3*2)
    assert M.arr_at_k(runs, 2) == pytest.approx(1 / 3)
    # pairwise: Rep = (1+0)/2, (1+0)/2, 0 -> 1 / 6
    assert M.arr_at_k(runs, 2, overlap="pairwise") == pytest.approx(1 / 6)
    runs = [[["a", "b"]], [["a", "b"]], [["a", "c"]]]
    assert M.arr_at_k(runs, 2) == pytest.approx(5 / 6)  # Rep 2, 2, 1
    assert M.arr_at_k(runs, 2, overlap="pairwise") == pytest.approx(2 / 3)  # 1.5, 1.5, 1


def test_arr_bounds_and_averaging_over_users():
    same = [[["a", "b"], ["c", "d"]]] * 4
    assert M.arr_at_k(same, 2) == 1.0
    disjoint = [[["a", "b"]], [["c", "d"]]]
    assert M.arr_at_k(disjoint, 2) == 0.0
    mixed = [[["a", "b"], ["x", "y"]], [["a", "b"], ["z", "w"]]]  # user 1: 1, user 2: 0
    assert M.arr_at_k(mixed, 2) == 0.5
    assert math.isnan(M.arr_at_k([[["a"]]], 2))
    with pytest.raises(ValueError):
        M.arr_at_k([[["a"]], []], 1)


def test_art():
    assert M.art([0.1, 0.3, None]) == pytest.approx(0.2)
    assert math.isnan(M.art([]))


def test_evaluate_averages_runs():
    runs = [LISTS, [["b", "a", "c"], ["y", "e", "f"]]]
    out = M.evaluate(runs, TARGETS, POP, QUAL, [1, 2], latencies_s=[1.0, 3.0])
    assert out["n_runs"] == 2 and out["n_users"] == 2 and out["art_s"] == 2.0
    # recall@1: run 0 -> 0, run 1 -> 0.5 ; mean 0.25
    assert out["K=1"]["recall"] == pytest.approx(0.25)
    # ARR@2 per user: u1 {a,b} both runs -> 1 ; u2 {d,e} vs {y,e} -> Rep 1+1 -> 2/4
    assert out["K=2"]["arr"] == pytest.approx(0.75)
    # standard error over the T = 2 runs: sample sd of [0, 0.5] = 0.5/sqrt(2), / sqrt(2) -> 0.25
    assert out["K=1"]["recall_se"] == pytest.approx(0.25)
    assert out["K=1"]["per_run"]["recall"] == [0.0, 0.5]
    assert math.isnan(M.evaluate([LISTS], TARGETS, POP, QUAL, [1])["K=1"]["recall_se"])  # one run: no error
