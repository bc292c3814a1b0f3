"""The comparisons of benchmarks/check_lm_eval.py and check_inspect.py on hand-made figures."""

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
