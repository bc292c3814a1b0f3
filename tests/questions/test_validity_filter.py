"""The construction's filter against its negative controls (lrworld/questions/validity.py): the
gold-rate cap by hand, and the filter on a question set with a planted shortcut."""

import numpy as np

from lrworld.questions.option_features import OptionFeatures
from lrworld.questions.validity import Validity, gold_cap, gold_rate_cap, select
from tests.support.planted import planted_table


def test_the_gold_cap_allows_a_fair_draws_noise_not_a_hub():
    assert gold_cap(1, 10) == 1  # a gold no other question shows: once
    assert gold_cap(10, 10) == 3  # 1 + 2 x sqrt(0.9)
    assert gold_cap(400, 4) == 118  # 100 + 2 x sqrt(75)


def test_the_latest_question_of_a_hub_is_dropped():
    def q(gold, *others):
        return {"candidates": [gold, *others], "answer_index": 0}
    # "a" shown 5 times, the gold of 4, two options each: gold_cap(5, 2) = ceil(2.5 + 2 x 1.118) = 5
    qs = [q("a", "x"), q("a", "y"), q("a", "z"), q("a", "w"), q("b", "a")]
    assert gold_rate_cap(qs) == []
    hub = [q("a", f"x{i}", f"y{i}", f"z{i}") for i in range(6)]  # the gold of 6 of 6 questions of 4 options
    dropped = gold_rate_cap(hub)
    # the latest first, until the gold of 3 <= gold_cap(3, 4) = ceil(0.75 + 1.5) = 3
    assert dropped == [3, 4, 5]


def _questions(n: int, planted: float, seed: int = 0):
    """n questions of 4 options; the gold given the largest `length_chars` in a share `planted` of them."""
    table = planted_table(n, 4, "length_chars", planted, seed)
    values, answers = table.values, table.answers
    qs = [{"qid": f"d/m/{i}", "candidates": [f"e{i}_{o}" for o in range(4)], "answer_index": int(answers[i]), "row": i}
          for i in range(n)]

    def features(subset):
        rows = [q["row"] for q in subset]
        return OptionFeatures([q["qid"] for q in subset], values[rows], answers[rows])
    return qs, features


def no_rules(subset):
    return {}


def test_questions_the_learned_answerer_finds_are_dropped_until_it_is_at_chance():
    qs, features = _questions(300, planted=0.5)
    kept, report = select(qs, 100, features, no_rules, Validity(True, 3), seed=0, name="planted")
    assert report["passes"] and report["kept"] == len(kept) == 100
    assert report["dropped_learned_filter"] > 0 and not report["learned"]["above_chance"]
    # what is kept is the builder's order, less what was dropped
    rows = [q["row"] for q in kept]
    assert rows == sorted(rows)


def test_with_nothing_to_find_the_first_questions_are_kept():
    qs, features = _questions(300, planted=0.0)
    kept, report = select(qs, 100, features, no_rules, Validity(True, 3), seed=0, name="none")
    assert report["passes"] and [q["row"] for q in kept] == list(range(100))
    assert report["not_needed"] == 200 and report["dropped_learned_filter"] == 0


def test_a_rule_above_chance_is_filtered_too():
    qs, features = _questions(300, planted=0.0)

    def first_option(subset):  # a rule that picks option 0: the gold there in a third of the questions
        return {"first_slot": np.asarray([q["answer_index"] == 0 for q in subset])}
    for q in qs[:150]:
        q["answer_index"] = 0 if q["row"] % 3 == 0 else q["answer_index"]
    kept, report = select(qs, 100, features, first_option, Validity(True, 3), seed=0, name="rule")
    assert report["passes"] and report["rules_above_chance"] == []
