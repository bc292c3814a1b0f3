"""The rules the benchmark enforces (lrworld/questions/enforced.py), and the builders drawing by
them: what the audit checks is what the builders avoided."""

import pandas as pd

from lrworld.questions import enforced
from lrworld.questions.knowledge import build_field_values, build_item_text
from lrworld.questions.measures import by_id
from lrworld.questions.windows import Window

WORKS = {"1": "war of the worlds (2005)", "2": "war of the worlds (2005)", "3": "heat (1995)"}


def test_same_work_is_what_a_reader_takes_the_id_for():
    assert enforced.same_work("1", "2", WORKS) and enforced.same_work("3", "3", WORKS)
    assert not enforced.same_work("1", "3", WORKS)
    assert not enforced.same_work("1", "2", None)  # without titles only the id tells
    assert enforced.work_key("9", WORKS) == "9"


def test_a_leak_is_a_met_item_by_id_or_by_work():
    met = enforced.Met(["2", "5"], WORKS)
    assert met.leaked_by("5") == "5"
    assert met.leaked_by("1") == "2"  # the other War of the Worlds
    assert met.leaked_by("3") is None
    assert enforced.leaked_by("1", ["2"], WORKS) == "2"


def test_people_compare_in_any_word_order():
    assert enforced.person_key("Scott, Ridley") == enforced.person_key("Ridley Scott")
    assert enforced.same_person("Director Ridley Scott", "scott ridley")
    assert not enforced.same_person("Ridley Scott", "Tony Scott") and not enforced.same_person("", "")
    assert enforced.true_of("Scott, Ridley", ["Ridley Scott"], "director")
    assert not enforced.true_of("Scott, Ridley", ["Ridley Scott"], "genres")  # texts keep their order
    assert enforced.true_of("war", ["War"], "genres")


def test_a_tie_is_one_timestamp():
    assert enforced.tied(5, 5) and not enforced.tied(6, 5)


def _items(n):
    return pd.DataFrame({"item_id": [str(i) for i in range(1, n + 1)], "title": [f"Film {i}" for i in range(1, n + 1)],
                         "year": 2000, "plot": [f"Logline {i}." for i in range(1, n + 1)]})


def test_item_text_never_draws_a_film_that_reads_like_one_the_user_met():
    items = _items(12)
    # item 12 is item 3 under another id: to a reader, a film the user already met
    items.loc[items.item_id == "12", "title"] = "Film 3"
    w = Window("u", ("1", "2", "3"), "4", known=pd.Series(["1", "2", "3", "4"]).to_numpy(dtype=object))
    drawn = set()
    for seed in range(40):
        qs, rep = build_item_text(by_id("text_logline"), "d", [w], items, seed)
        drawn |= set(qs[0]["candidates"])
    assert "12" not in drawn and {"5", "6", "7", "8", "9", "10", "11"} <= drawn


def test_field_values_never_draws_the_gold_in_another_word_order():
    items = pd.DataFrame({"item_id": [str(i) for i in range(1, 7)], "title": [f"F{i}" for i in range(1, 7)],
                          "year": 2000, "director": [["Scott, Ridley"], ["Ridley Scott"], ["Jane Campion"],
                                                     ["John Woo"], ["Ang Lee"], ["Ken Loach"]]})
    w = Window("u", ("1",), "2", known=pd.Series(["1", "2"]).to_numpy(dtype=object))
    for seed in range(30):
        qs, _ = build_field_values(by_id("kg_director"), "d", [w], items, seed)
        (q,) = qs
        negs = [c for j, c in enumerate(q["candidates"]) if j != q["answer_index"]]
        assert q["candidates"][q["answer_index"]] in ("Ridley Scott", "Scott, Ridley")
        assert not any(enforced.same_person(n, "Ridley Scott") for n in negs), q
