"""kg_director, kg_cast and text_logline on the real ML-100K joined with its IMDb details."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

from lrworld.data.ingest import ingest
from lrworld.prompts.render import render_all, template_path
from lrworld.questions.build import build_questions

LAWRENCE = "511"  # Lawrence of Arabia (1962), directed by David Lean, starring Peter O'Toole


@pytest.fixture(scope="module")
def ml100k_imdb(shared_data):
    inter, items, _, report = ingest(
        "ml100k", {"format": "ml-100k"}, shared_data / "movielens-100k/raw",
        {"imdb_details": shared_data / "movielens-100k/imdb-details/movielens100k_details.json"})
    return inter, items


def _with_positive(inter, item_id, user="1"):
    """User `user`'s real history, then `item_id` watched last."""
    extra = pd.DataFrame({"user_id": [user], "item_id": [item_id], "rating": [5.0],
                          "timestamp": [int(inter["timestamp"].max()) + 1]})
    inter = inter[~((inter.user_id == user) & (inter.item_id == item_id))]
    return pd.concat([inter, extra], ignore_index=True).sort_values(["user_id", "timestamp", "item_id"],
                                                                   kind="mergesort").reset_index(drop=True)


@pytest.mark.parametrize("measure,field,answer", [("kg_director", "director", "David Lean"),
                                                  ("kg_cast", "cast", "Peter OToole")])
def test_known_movie_answer_is_its_first_listed_value(ml100k_imdb, measure, field, answer):
    inter, items = ml100k_imdb
    inter = _with_positive(inter, LAWRENCE)
    qs, report = build_questions("ml100k", "movie", measure, inter, items, 5, None, 7)
    (q,) = [q for q in qs if q["user_id"] == "1"]
    assert q["target_item"] == LAWRENCE and q["candidates"][q["answer_index"]] == answer
    vals = dict(zip(items["item_id"], items[field].map(list)))
    for q in qs:
        own = vals[q["target_item"]]
        assert q["candidates"][q["answer_index"]] == own[0]
        assert len(set(q["candidates"])) == 4
        # no distractor is also a director / cast member of the next movie
        assert sum(c in own for c in q["candidates"]) == 1
    # positives without IMDb details are skipped and counted, never answered with a missing value
    assert len(qs) + sum(report["skipped"].values()) == 943
    assert report["skipped"]["positive_has_no_value"] > 0
    assert chisquare(np.bincount([q["answer_index"] for q in qs], minlength=4)).pvalue > 0.001


def test_logline_questions_show_loglines_only(ml100k_imdb):
    inter, items = ml100k_imdb
    inter = _with_positive(inter, LAWRENCE)
    qs, report = build_questions("ml100k", "movie", "text_logline", inter, items, 5, None, 7)
    plots = {i: p for i, p in zip(items["item_id"], items["plot"]) if isinstance(p, str)}
    titles = dict(zip(items["item_id"], items["title"]))
    for q in qs:
        assert q["candidate_kind"] == "item" and q["candidates"][q["answer_index"]] == q["target_item"]
        assert q["target_item"] not in q["candidates"][:q["answer_index"]] + q["candidates"][q["answer_index"] + 1:]
        assert not set(q["candidates"]) - {q["target_item"]} & set(q["history"])
        shown = [plots[c] for c in q["candidates"]]
        assert len(set(shown)) == 4  # no negative's logline equals the positive's
    assert len(qs) + sum(report["skipped"].values()) == 943
    (q,) = [q for q in qs if q["user_id"] == "1"]
    (p,) = render_all([q], template_path("movie", "text_logline", "zero_shot"), items, "zero_shot")
    assert p["candidates"][p["answer_index"]].startswith("The story of T.E. Lawrence")
    shown = q["history"] + q["candidates"]
    outside = p["prompt"]
    for it in shown:
        assert " ".join(plots[it].split()) in p["prompt"]
        outside = outside.replace(" ".join(plots[it].split()), "")
    # the title is never shown besides the loglines (paper Table 9); a logline may name its own
    # film ("... a best selling book to be titled 'Talking About Sex'", item 1272)
    assert not [titles[it] for it in shown if titles[it] in outside]


def test_a_value_spelled_differently_is_never_a_distractor():
    from lrworld.questions.build import build_questions as bq

    items = pd.DataFrame({"item_id": list("abcdefg"), "title": list("abcdefg"),
                          "brand": ["OXO", "Oxo", "oxo ", "Lodge", "T-fal", "T fal", "Zinus"]})
    inter = pd.DataFrame({"user_id": ["u"] * 6, "item_id": list("bcdefa"), "timestamp": range(6)})
    for seed in range(20):
        (q,), rep = bq("d", "product", "kg_brand", inter, items, 5, None, seed)
        assert q["candidates"][q["answer_index"]] == "OXO"
        assert sorted(q["candidates"]) == sorted(["OXO", "Lodge", "T-fal", "Zinus"]) or \
            sorted(q["candidates"]) == sorted(["OXO", "Lodge", "T fal", "Zinus"])
    assert rep["values_merged_by_spelling"] == 3
