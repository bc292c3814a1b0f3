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
