"""How many sources back a knowledge measure's golds, from real data through the question report
to the table's footnote."""

import pytest

from lrworld.data.ingest import ingest_with_facts
from lrworld.questions.build import QuestionError, build_questions
from lrworld.questions.witnesses import describe, notes, summary

DIRECTED = 1154  # ML-100K items HetRec gives a director (title + year alignment), before the merge


def _hetrec_only(shared_data, **facts):
    d, h = shared_data / "movielens-100k", shared_data / "hetrec2011-movielens-2k"
    cfg = {"format": "ml-100k", "metadata": {"min_alignment": 0.1}, "facts": facts}
    return ingest_with_facts("ml", cfg, d / "raw", {"hetrec_directors": [h / "movie_directors.dat"],
                                                    "hetrec_movies": [h / "movies.dat"]})


def test_only_hetrec_directors_is_shown_as_100_percent_single_source(shared_data):
    inter, items, _, report, _ = _hetrec_only(shared_data)
    assert report["facts"]["fields"]["director"]["items"] == DIRECTED
    qs, rep = build_questions("ml", "movie", "kg_director", inter, items, 5, 50, 2024)
    s = summary(rep)
    assert (s["questions"], s["single_source"], s["two_or_more"]) == (50, 50, 0)
    assert describe(s) == "100% single-source (hetrec_directors)"
    assert notes({"kg_director": s}) == [
        "\u2021 sources per gold (knowledge measures; a single-source gold is checked by no second source): "
        "kg_director: 100% single-source (hetrec_directors)."]
    # genres come from the dataset's own file alone: a knowledge measure of one source too
    _, genre = build_questions("ml", "movie", "attr_genre", inter, items, 5, 20, 2024)
    assert describe(summary(genre)) == "100% single-source (ml-100k)"
    # a ground-truth measure's report has no `facts`: no metadata source, no mark
    assert summary({"measure": "assoc_rule", "questions": 5}) is None


def test_min_witnesses_two_drops_every_single_source_gold_and_says_why(shared_data):
    inter, items, _, report, _ = _hetrec_only(shared_data, min_witnesses=2)
    d = report["facts"]["fields"]["director"]
    assert d["dropped_single_source"] == DIRECTED and d["items"] == 0
    with pytest.raises(QuestionError, match="has one source and facts.min_witnesses is 2") as e:
        build_questions("ml", "movie", "kg_director", inter, items, 5, 50, 2024)
    assert "set facts.min_witnesses: 1" in str(e.value)
