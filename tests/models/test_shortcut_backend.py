"""The shortcut answerers on hand-made questions: each rule's pick, its tie-break, the cache key its
signals enter, and the signals a question carries (leave-one-out gold counts, popularity)."""

from collections import Counter

import pandas as pd
import pytest

from lrworld.inference.cache import request_key
from lrworld.models import PromptItem, make_backend
from lrworld.models.shortcut import pick, shortcuts
from lrworld.prompts.render import render_all, template_path
from lrworld.questions.signals import attach, popularity

LABELS = ("A", "B", "C", "D")
ITEM = PromptItem("d/m/1", "p", LABELS, ("Drama", "Film-Noir", "War", "Sci-Fi"),
                  option_signals={"popularity": [9, 1, 4, 4], "gold_count_others": [0, 2, 5, 1],
                                  "history_overlap": [0, 0, 0, 3]})


@pytest.mark.parametrize("rule, want", [("most_popular", 0), ("least_popular", 1), ("gold_prior", 2),
                                        ("shortest_text", 2), ("longest_text", 1), ("history_overlap", 3),
                                        ("first_slot", 0)])
def test_each_rule_picks_its_option(rule, want):
    b = make_backend("s", {"backend": "shortcut", "rule": rule})
    (r,) = b.answer([ITEM])
    assert (r.choice_index, r.raw_text) == (want, LABELS[want])


def test_every_registered_rule_is_tested_here():
    assert set(shortcuts().names()) == {"most_popular", "least_popular", "gold_prior", "shortest_text",
                                        "longest_text", "history_overlap", "first_slot"}


def test_ties_and_missing_signals_are_a_seeded_uniform_pick():
    items = [PromptItem(f"q{i}", "p", LABELS, ("a", "b", "c", "d")) for i in range(4000)]
    picks = Counter(pick("most_popular", it) for it in items)  # no popularity at all
    assert set(picks) == {0, 1, 2, 3} and all(900 < c < 1100 for c in picks.values())
    tied = PromptItem("q", "p", LABELS, ("a", "bb", "cc", "d"))
    assert {pick("longest_text", PromptItem(f"q{i}", "p", LABELS, tied.candidates)) for i in range(50)} == {1, 2}
    assert pick("longest_text", tied) == pick("longest_text", tied)


def test_signals_key_only_the_shortcut_answers():
    req = {"prompt": "p", "option_signals": {"popularity": [1, 2]}}
    reads = make_backend("s", {"backend": "shortcut", "rule": "most_popular"}).identity()
    text_only = make_backend("s", {"backend": "shortcut", "rule": "shortest_text"}).identity()
    other = {**req, "option_signals": {"popularity": [2, 1]}}
    assert request_key(reads, req) != request_key(reads, other)
    assert request_key(text_only, req) == request_key(text_only, other)
    random = make_backend("random", {"backend": "random"}).identity()
    assert request_key(random, req) == request_key(random, {"prompt": "p"})


def test_unknown_rule_is_refused_by_name():
    from lrworld.models.registry import backends

    assert "rule" in backends().get("shortcut").check({"backend": "shortcut"})
    assert backends().get("shortcut").schema["rule"]["enum"] == shortcuts().names()


def test_signals_leave_the_question_itself_out_and_follow_the_options():
    inter = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u3"], "item_id": ["1", "2", "1", "1"]})
    items = pd.DataFrame({"item_id": ["1", "2", "3"], "title": ["Heat", "Alien", "Ran"], "year": [1995, 1979, 1985],
                          "genres": [["Drama", "War"], ["Drama"], ["Sci-Fi"]]})
    qs = [{"qid": f"d/attr_genre/u{i}", "dataset": "d", "measure": "attr_genre", "history": ["1", "2"],
           "candidate_kind": "value", "candidates": c, "answer_index": a}
          for i, (c, a) in enumerate([(["Drama", "War", "Sci-Fi", "Noir"], 0), (["War", "Drama", "Noir", "Sci-Fi"], 1),
                                      (["Noir", "War", "Drama", "Sci-Fi"], 1)])]
    attach(qs, popularity(inter, items, "genres"))
    # golds: Drama twice, War once; the question's own gold is never counted
    assert qs[0]["signals"]["gold_count_others"] == {"Drama": 1, "War": 1, "Sci-Fi": 0, "Noir": 0}
    assert qs[2]["signals"]["gold_count_others"] == {"Noir": 0, "War": 0, "Drama": 2, "Sci-Fi": 0}
    assert qs[0]["signals"]["popularity"] == {"Drama": 2, "War": 1, "Sci-Fi": 1, "Noir": 0}
    (p,) = render_all(qs[:1], template_path("movie", "attr_genre", "zero_shot"), items, "zero_shot")
    assert p["option_signals"]["gold_count_others"] == [1, 1, 0, 0]
    assert p["option_signals"]["popularity"] == [2, 1, 1, 0]
    item_qs = [{"qid": "d/m/x", "candidate_kind": "item", "candidates": ["2", "1"], "answer_index": 0}]
    assert attach(item_qs, popularity(inter))[0]["signals"]["popularity"] == {"2": 1, "1": 3}
