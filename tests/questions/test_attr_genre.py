import numpy as np
import pandas as pd
from scipy.stats import chisquare

from lrworld.data.ingest import ingest
from lrworld.questions.build import build_questions
from lrworld.questions.windows import latest_windows

import pytest


@pytest.fixture(scope="module")
def ml100k(shared_data):
    inter, items, _, _ = ingest("ml100k", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    return inter, items


def test_latest_window_is_the_last_items_in_time_order():
    inter = pd.DataFrame({"user_id": ["u"] * 4 + ["v"], "item_id": ["a", "b", "c", "d", "a"],
                          "timestamp": [1, 2, 3, 4, 1]})
    (w,) = latest_windows(inter, 2)  # v has too few interactions
    assert (w.user_id, w.history, w.positive) == ("u", ("b", "c"), "d")


def test_genre_questions_on_real_ml100k(ml100k):
    inter, items = ml100k
    qs, report = build_questions("ml100k", "movie", "attr_genre", inter, items, 5, None, 7)
    genres = dict(zip(items["item_id"], items["genres"].map(list)))
    # every user of ML-100K has >= 20 ratings; a few positives have only the 'unknown' genre
    assert report["users_without_window"] == 0
    assert len(qs) + sum(report["skipped"].values()) == 943
    for q in qs:
        own = genres[q["target_item"]]
        assert len(q["candidates"]) == 4 and len(set(q["candidates"])) == 4
        assert q["candidates"][q["answer_index"]] in own
        # no distractor is also a genre of the next movie: exactly one correct option
        assert sum(c in own for c in q["candidates"]) == 1
        hist = inter[inter.user_id == q["user_id"]]["item_id"].tolist()
        assert q["history"] == hist[-6:-1] and q["target_item"] == hist[-1]
    # the answer slot is uniform over A-D
    slots = np.bincount([q["answer_index"] for q in qs], minlength=4)
    assert chisquare(slots).pvalue > 0.001


def test_same_seed_same_questions_other_seed_other_questions(ml100k):
    inter, items = ml100k
    a, _ = build_questions("ml100k", "movie", "attr_genre", inter, items, 5, 50, 1)
    b, _ = build_questions("ml100k", "movie", "attr_genre", inter, items, 5, 50, 1)
    c, _ = build_questions("ml100k", "movie", "attr_genre", inter, items, 5, 50, 2)
    assert a == b and a != c and len(a) == 50
