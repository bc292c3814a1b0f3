"""The comparisons of benchmarks/check_lm_eval.py, check_inspect.py and check_inspect_generate.py on
hand-made figures."""

import json

from benchmarks.check_inspect import inspect_answers
from benchmarks.check_lm_eval import compare


def test_rankings_are_compared_per_measure_with_the_largest_gap():
    ours = {"d/attr_genre/1": [-1.0, -2.0, -3.0, -4.0], "d/mem_item_item/2": [-2.0, -1.0] + [-9.0] * 8}
    theirs = {"d/attr_genre/1": [-1.5, -2.5, -3.5, -4.5],  # the same order, every option 0.5 lower
              "d/mem_item_item/2": [-1.0, -2.0] + [-9.0] * 8}  # top two swapped
    res = compare(ours, theirs)
    assert res["per_measure"] == {"attr_genre": {"questions": 1, "rankings_equal": 1, "options": 4},
                                  "mem_item_item": {"questions": 1, "rankings_equal": 0, "options": 10}}
    assert (res["rankings_equal"], res["top_equal"], res["max_abs_logprob_diff"]) == (1, 1, 1.0)


def test_inspect_replies_read_from_its_log(tmp_path):
    log = tmp_path / "log.json"
    log.write_text(json.dumps({"samples": [
        {"id": "q1", "scores": {"choice": {"value": "C", "answer": "B"}},
         "output": {"choices": [{"message": {"content": "ANSWER: B"}}]}},
        {"id": "q2", "scores": {"choice": {"value": "I", "answer": None}},
         "output": {"choices": [{"message": {"content": "A) War"}}]}}]}))
    assert inspect_answers(log) == {"q1": {"answer": 1, "correct": True, "completion": "ANSWER: B"},
                                    "q2": {"answer": None, "correct": False, "completion": "A) War"}}


def test_scripted_letters_are_judged_by_inspect_and_by_lrworlds_hit_ratio():
    from benchmarks.check_inspect import agreement

    chosen, gold = {"q1": 1, "q2": 0, "q3": 2}, {"q1": 1, "q2": 1, "q3": 2}  # lrworld: 2 of 3 right
    theirs = {"q1": {"answer": 1, "correct": True}, "q2": {"answer": 0, "correct": False},
              "q3": {"answer": None, "correct": False}}  # q3 unread, so Inspect calls it wrong
    assert agreement(chosen, gold, theirs) == {"questions": 3, "parsed": 2, "verdicts_equal": 2,
                                               "inspect_correct": 1, "lrworld_correct": 2}


def test_generate_mode_replies_and_verdicts_are_compared_per_measure(tmp_path):
    from benchmarks.check_inspect_generate import compare, inspect_samples, table

    labels, cands = ["A", "B", "C", "D"], ["Comedy", "War", "Horror", "Western"]
    rows = {"attr_genre": [{"qid": f"d/attr_genre/{i}", "labels": labels, "candidates": cands, "answer_index": g}
                           for i, g in enumerate([0, 1, 2])],
            "mem_item_item": [{"qid": "d/mem_item_item/0", "labels": labels, "candidates": cands, "answer_index": 3}]}
    ours = {"d/attr_genre/0": "A. Comedy", "d/attr_genre/1": "The answer is C", "d/attr_genre/2": "no idea",
            "d/mem_item_item/0": "Western"}
    log = tmp_path / "log.json"
    log.write_text(json.dumps({"status": "success", "samples": [
        {"id": "d/attr_genre/0", "scores": {"lrworld_parsed": {"value": "C", "answer": "A"}},
         "output": {"choices": [{"message": {"content": "A. Comedy"}}]}},
        # a different reply that Inspect read as the gold: text, option and verdict all differ
        {"id": "d/attr_genre/1", "scores": {"lrworld_parsed": {"value": "C", "answer": "B"}},
         "output": {"choices": [{"message": {"content": "B"}}]}},
        {"id": "d/attr_genre/2", "scores": {"lrworld_parsed": {"value": "I", "answer": None}},
         "output": {"choices": [{"message": {"content": [{"type": "text", "text": "no idea"}]}}]}},
        {"id": "d/mem_item_item/0", "scores": {"lrworld_parsed": {"value": "C", "answer": "D"}},
         "output": {"choices": [{"message": {"content": "Western"}}]}}]}))
    res = compare(rows, ours, inspect_samples(log))
    assert res["attr_genre"] == {"questions": 3, "same_text": 2, "same_option": 2, "same_verdict": 2,
                                 "inspect_correct": 2, "lrworld_correct": 1, "lrworld_missed": 1}
    assert res["mem_item_item"] == {"questions": 1, "same_text": 1, "same_option": 1, "same_verdict": 1,
                                    "inspect_correct": 1, "lrworld_correct": 1, "lrworld_missed": 0}
    assert res["all"]["same_verdict"] == 3 and res["all"]["questions"] == 4
    assert "| attr_genre | 3 | 2 / 3 | 2 / 3 | 2 / 3 | 0.667 / 0.333 |" in table(res)


def test_generate_mode_comparison_refuses_question_sets_that_differ():
    import pytest

    from benchmarks.check_inspect_generate import compare

    rows = {"m": [{"qid": "q1", "labels": ["A"], "candidates": ["x"], "answer_index": 0}]}
    with pytest.raises(SystemExit, match="question ids differ"):
        compare(rows, {"q1": "A"}, {})
