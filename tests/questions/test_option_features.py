"""What a knowledge-free answerer can read of each option, hand-computed on two tiny questions."""

import numpy as np
import pandas as pd
import pytest

from lrworld.questions.option_features import (NAMES, Closeness, DataCounts, Profile, closeness, option_features)

ITEMS = pd.DataFrame({"item_id": ["1", "2", "3", "4", "5"],
                      "title": ["Heat", "Alien", "Aliens", "Big", "Cube"],
                      "year": [1995, 1979, 1986, 1988, 1997],
                      "genres": [["Action", "Crime"], ["Horror", "Sci-Fi"], ["Action", "Sci-Fi"], ["Comedy"], ["Horror"]]})
INTER = pd.DataFrame({"user_id": ["u", "u", "v", "v", "w"], "item_id": ["1", "2", "2", "3", "2"],
                      "rating": [4.0, 2.0, 5.0, 3.0, 5.0], "timestamp": [1, 2, 1, 2, 1]})


def q(qid, antecedents, candidates, answer):
    return {"qid": qid, "qtype": "hit10", "candidate_kind": "item", "context": {"antecedents": antecedents},
            "candidates": candidates, "answer_index": answer}


def test_each_feature_of_an_option_by_hand():
    qs = [q("d/m/1", ["2"], ["3", "4", "5"], 0), q("d/m/2", ["1"], ["3", "5", "2"], 1)]
    t = option_features(qs, ITEMS, DataCounts(INTER, ITEMS))
    f = dict(zip(NAMES, t.values[0, 0]))  # "Aliens (1986) [Action, Sci-Fi]" against "Alien (1979) [Horror, Sci-Fi]"
    assert f["slot"] == 0.0 and f["year"] == 1986 and f["year_distance"] == 7
    assert (f["categories"], f["categories_shared"], f["categories_jaccard"]) == (2, 1, 1 / 3)
    assert f["words_shared"] == 1  # "sci" of Sci-Fi; "aliens" is not "alien"
    assert f["log_popularity"] == pytest.approx(np.log(2)) and f["mean_rating"] == 3.0
    # item 3 is the gold of question 1 and shown by question 2: leave-one-out counts
    assert (f["gold_count_others"], f["appearances_others"], f["gold_rate_others"]) == (0, 1, 0.0)
    g = dict(zip(NAMES, t.values[1, 1]))  # item 5, the gold of question 2, shown by question 1 too
    assert (g["gold_count_others"], g["appearances_others"], g["gold_rate_others"]) == (0, 1, 0.0)
    h = dict(zip(NAMES, t.values[0, 2]))  # item 5 in question 1: the gold of question 2
    assert (h["gold_count_others"], h["gold_rate_others"], h["slot"]) == (1, 1.0, 1.0)
    assert list(t.answers) == [0, 1] and t.values.shape == (2, 3, len(NAMES))


def test_a_measures_own_signal_is_left_out():
    t = option_features([q("d/m/1", ["2"], ["3", "4", "5"], 0)], ITEMS, DataCounts(INTER, ITEMS))
    left = t.without(("history_overlap", "year_closeness"))
    assert "words_shared" not in left.names and "year" not in left.names and "year_distance" not in left.names
    assert left.values.shape[2] == len(NAMES) - 3


def test_closeness_weighs_shared_categories_against_years_apart():
    ctx = Profile(1990.0, frozenset({"action", "crime"}))
    assert closeness(Profile(1990.0, frozenset({"action"})), ctx) == pytest.approx(0.5)
    assert closeness(Profile(2000.0, frozenset({"action", "crime"})), ctx) == pytest.approx(0.0)
    assert closeness(Profile(float("nan"), frozenset()), ctx) == 0.0
    c = Closeness(ITEMS, INTER)
    ranks = c.ranks(c.item["3"], ["1", "2", "4"])
    # Heat (1995, shares Action) is nearest Aliens (1986, Action+Sci-Fi)... by categories, then years
    assert ranks.count["2"] == pytest.approx(1 / 3 - 0.7) and ranks.count["4"] == pytest.approx(-0.2)
    assert c.recent("v", 1) == ["3"] and c.user["v"].year == pytest.approx((1979 + 1986) / 2)
