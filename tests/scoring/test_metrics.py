import numpy as np
import pytest

from lrworld.scoring.metrics import score


def test_accuracy_counts_missed_as_wrong():
    recs = [{"parsed": 0, "answer_index": 0}, {"parsed": 1, "answer_index": 2},
            {"parsed": None, "answer_index": 1}, {"parsed": 3, "answer_index": 3}]
    s = score(recs, "accuracy")
    assert (s["n"], s["correct"], s["missed"]) == (4, 2, 1)
    assert s["accuracy"] == 0.5 and s["missed_rate"] == 0.25 and s["value"] == 0.5


def test_empty_is_an_error():
    with pytest.raises(ValueError):
        score([], "hit_ratio_at_1")


def _recs(parsed, gold):
    return [{"parsed": p, "answer_index": g} for p, g in zip(parsed, gold)]


def test_most_frequent_slot_and_the_degenerate_flag():
    s = score(_recs([0] * 9 + [2], [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]), "accuracy", 4)
    assert (s["slot_counts"], s["top_slot"], s["top_slot_share"], s["degenerate"]) == ([9, 0, 1, 0], 0, 0.9, True)
    # a missed answer is no slot but counts in the share's denominator: 7 of 10 is not degenerate
    s = score(_recs([1] * 7 + [None, 3, 0], [0] * 10), "accuracy", 4)
    assert (s["top_slot"], s["top_slot_share"], s["degenerate"]) == (1, 0.7, False)


def test_exactly_80_percent_in_one_slot_is_degenerate():
    # 40 of 50 answers in one slot (exactly 80%) was not marked
    s = score(_recs([2] * 40 + [0, 1, 3] * 3 + [None], [0] * 50), "hit_ratio_at_1", 10)
    assert (s["top_slot"], s["top_slot_share"], s["degenerate"]) == (2, 0.8, True)
    s = score(_recs([2] * 39 + [0, 1, 3] * 3 + [None, None], [0] * 50), "hit_ratio_at_1", 10)
    assert (s["top_slot_share"], s["degenerate"]) == (0.78, False)


def test_pride_prior_correction_hand_computed():
    # p(A), p(B) per question; the prior is their mean, (0.75, 0.25); debiased choice = argmax p / prior:
    # q1 0.9/.75=1.20 > 0.1/.25=0.40 -> A; q2 1.07 > 0.80 -> A; q3 0.93 < 1.20 -> B; q4 0.80 < 1.60 -> B
    p = [[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.6, 0.4]]
    gold = [0, 0, 1, 1]
    recs = [{"parsed": 0, "answer_index": g, "label_logprobs": (np.log(row) - 3.0).tolist()}  # any per-row shift
            for row, g in zip(p, gold)]
    s = score(recs, "accuracy", 2)
    assert s["value"] == 0.5 and s["debiased"] == 1.0 and s["degenerate"] is True
    np.testing.assert_allclose(s["label_prior"], [0.75, 0.25])
    assert s["debiased_method"].startswith("pride_prior")


def test_pride_never_picks_a_slot_no_question_gave_mass():
    recs = [{"parsed": 0, "answer_index": 1, "label_logprobs": [-0.1, -2.0, float("-inf")]},
            {"parsed": 0, "answer_index": 1, "label_logprobs": [-0.2, -1.9, float("-inf")]}]
    # p = (.870, .130, 0) and (.846, .154, 0); prior (.858, .142, 0); p / prior: q1 (1.014, .914) -> A,
    # q2 (.986, 1.087) -> B; C, which no question gave mass, is never chosen (and no nan)
    s = score(recs, "accuracy", 3)
    assert s["label_prior"][2] == 0.0 and s["debiased"] == 0.5


def test_no_log_probabilities_no_debiased_figure():
    recs = _recs([0, 1], [0, 0])
    recs[0]["label_logprobs"] = [-0.1, -2.0]
    s = score(recs, "accuracy", 2)
    assert s["debiased"] is None and s["debiased_method"] is None and s["label_prior"] is None
