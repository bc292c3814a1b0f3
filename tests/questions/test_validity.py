"""Validity of the knowledge question builders: each test fails if its rule is undone."""

import pandas as pd
import pytest
import yaml

from lrworld.core.schema import SCHEMA_PATH
from lrworld.data.contract import finalize_interactions
from lrworld.data.ingest import ingest
from lrworld.questions import measures
from lrworld.questions.build import build_questions
from lrworld.questions.windows import latest_windows


@pytest.fixture(scope="module")
def ml100k_imdb(shared_data):
    inter, items, _, _ = ingest(
        "ml100k", {"format": "ml-100k"}, shared_data / "movielens-100k/raw",
        {"imdb_details": shared_data / "movielens-100k/imdb-details/movielens100k_details.json"})
    return inter, items


def _slots(qs):
    return [q["answer_index"] for q in qs]


# 1. seeds ---------------------------------------------------------------------------------------

def test_slot_sequences_differ_between_datasets_and_do_not_depend_on_other_datasets(ml100k_imdb):
    inter, items = ml100k_imdb
    a, _ = build_questions("a", "movie", "attr_genre", inter, items, 5, 100, 3)
    b, _ = build_questions("b", "movie", "attr_genre", inter, items, 5, 100, 3)
    assert _slots(a) != _slots(b)
    # the same dataset under its own name again: the same questions, whatever else exists
    assert build_questions("a", "movie", "attr_genre", inter, items, 5, 100, 3)[0] == a
    # one question's answer slot does not depend on how many questions are built
    few = {q["qid"]: q["answer_index"] for q in build_questions("a", "movie", "attr_genre", inter, items, 5, 20, 3)[0]}
    many = {q["qid"]: q["answer_index"] for q in a}
    assert all(many[k] == v for k, v in few.items() if k in many)


def test_slot_sequences_differ_between_knowledge_measures(ml100k_imdb):
    inter, items = ml100k_imdb
    seqs = {m: _slots(build_questions("ml", "movie", m, inter, items, 5, 100, 3)[0])
            for m in ("attr_genre", "kg_director", "kg_cast", "text_logline")}
    users = {m: [q["user_id"] for q in build_questions("ml", "movie", m, inter, items, 5, 100, 3)[0]] for m in seqs}
    # compared on the users two measures share, the slots still differ
    for m1 in seqs:
        for m2 in seqs:
            if m1 < m2:
                common = sorted(set(users[m1]) & set(users[m2]))
                s1 = dict(zip(users[m1], seqs[m1]))
                s2 = dict(zip(users[m2], seqs[m2]))
                assert [s1[u] for u in common] != [s2[u] for u in common], (m1, m2)


# 2. negatives from the user's past -------------------------------------------------------------

def test_logline_negatives_never_come_from_the_whole_history(ml100k_imdb):
    inter, items = ml100k_imdb
    qs, report = build_questions("ml", "movie", "text_logline", inter, items, 5, None, 7)
    history = inter.groupby("user_id")["item_id"].agg(set)
    leaks = [(q["qid"], c) for q in qs for i, c in enumerate(q["candidates"])
             if i != q["answer_index"] and c in history[q["user_id"]]]
    assert leaks == []
    # the draws that hit the user's history are rejected and counted (ML-100K users rate ~106 films);
    # leaving out only the shown window is not enough
    assert report["negatives_rejected"]["in_earlier_history"] > 100


# 3. timestamp ties -----------------------------------------------------------------------------

def test_ties_break_by_numeric_id_not_text():
    rows = [("u", "939", 5), ("u", "94", 5), ("u", "944", 5), ("u", "1", 1), ("u", "2", 2), ("u", "3", 3)]
    inter = finalize_interactions(pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]), "fx")
    assert inter["item_id"].tolist() == ["1", "2", "3", "94", "939", "944"]
    (w,) = latest_windows(inter, 5)
    assert (w.positive, w.tied) == ("944", True) and w.history[-2:] == ("94", "939")
    (s,) = latest_windows(inter, 5, ties="string")
    assert s.positive == "944" and s.history[-2:] == ("939", "94")


def test_ties_are_counted_and_drop_skips_the_users(ml100k_imdb):
    inter, items = ml100k_imdb
    qs, rep = build_questions("ml", "movie", "attr_genre", inter, items, 5, None, 7)
    assert rep["ties"]["windows_with_tied_positive"] == 415 and rep["ties"]["users_dropped"] == 0
    assert rep["ties"]["questions_with_tied_positive"] == sum(q["tied_positive"] for q in qs) > 0
    dq, drep = build_questions("ml", "movie", "attr_genre", inter, items, 5, None, 7, ties="drop")
    assert drep["ties"]["users_dropped"] == 415 and not any(q["tied_positive"] for q in dq)
    assert len(dq) + sum(drep["skipped"].values()) == 943 - 415
    assert {q["user_id"] for q in dq} <= {q["user_id"] for q in qs}


def test_string_order_reproduces_the_old_text_order(ml100k_imdb):
    inter, items = ml100k_imdb
    num = {q["user_id"]: q["target_item"] for q in build_questions("ml", "movie", "attr_genre", inter, items, 5,
                                                                   None, 7)[0]}
    txt = {q["user_id"]: q["target_item"] for q in build_questions("ml", "movie", "attr_genre", inter, items, 5,
                                                                   None, 7, ties="string")[0]}
    changed = [u for u in num if u in txt and num[u] != txt[u]]
    assert changed  # the order of tied items decides which one is "the next item"


# 5. values that are not values -----------------------------------------------------------------

def _imax_fixture():
    items = pd.DataFrame({"item_id": [str(i) for i in range(1, 9)], "title": list("abcdefgh"),
                          "genres": [["Action", "IMAX"], ["Drama"], ["Comedy"], ["Horror"], ["IMAX"],
                                     ["Western"], ["(no genres listed)"], ["Action", "IMAX"]]})
    rows = [(u, str(i), t) for u in "uvw" for t, i in enumerate([2, 3, 4, 6, 7])]
    rows += [("u", "1", 9), ("v", "5", 9), ("w", "8", 9)]
    inter = finalize_interactions(pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]), "fx")
    return inter, items


def test_excluded_values_are_never_an_option_and_are_counted():
    inter, items = _imax_fixture()
    exclude = yaml.safe_load(SCHEMA_PATH.read_text())["properties"]["questions"]["properties"]["exclude_values"]
    assert exclude["default"] == {"genres": ["IMAX", "(no genres listed)"]}
    for seed in range(30):
        qs, rep = build_questions("d", "movie", "attr_genre", inter, items, 5, None, seed,
                                  exclude_values=exclude["default"])
        assert {q["user_id"] for q in qs} == {"u", "w"}  # v's next movie is only "IMAX"
        assert all(not {"IMAX", "(no genres listed)"} & set(q["candidates"]) for q in qs)
    assert rep["skipped"] == {"positive_has_only_excluded_values": 1}
    assert rep["excluded_values"]["item_values_removed"] == {"(no genres listed)": 1, "IMAX": 3}
    # without the exclusion IMAX is an option
    seen = {c for s in range(30) for q in build_questions("d", "movie", "attr_genre", inter, items, 5, None, s)[0]
            for c in q["candidates"]}
    assert "IMAX" in seen


def test_exclusion_fields_are_the_registry_fields():
    schema = yaml.safe_load(SCHEMA_PATH.read_text())
    names = schema["properties"]["questions"]["properties"]["exclude_values"]["propertyNames"]["enum"]
    fields = {m.field for m in measures.MEASURES if m.builder == measures.FIELD_VALUES}
    assert set(names) == fields


# 6. options that read the same -----------------------------------------------------------------

def test_loglines_that_read_the_same_are_never_two_options():
    n = 12
    plots = [f"Plot number {i}." for i in range(n)]
    plots[7] = "PLOT number 0"  # reads like item 0's logline: case and punctuation only
    items = pd.DataFrame({"item_id": [str(i) for i in range(n)], "title": [f"t{i}" for i in range(n)], "plot": plots})
    rows = [("u", str(i), t) for t, i in enumerate([1, 2, 3, 4, 5, 0])]
    inter = finalize_interactions(pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]), "fx")
    rejected = 0
    for seed in range(40):
        (q,), rep = build_questions("d", "movie", "text_logline", inter, items, 5, None, seed)
        assert "7" not in q["candidates"]
        rejected += rep["negatives_rejected"].get("same_text_as_another_option", 0)
    assert rejected > 0


def test_windows_expose_the_whole_history():
    inter = pd.DataFrame({"user_id": ["u"] * 7, "item_id": list("abcdefg"), "timestamp": range(7)})
    (w,) = latest_windows(inter, 2)
    assert w.history == ("e", "f") and w.positive == "g" and list(w.known) == list("abcdefg")
