import json
import re

import pandas as pd
import pytest

from lrworld.data.contract import DataError
from lrworld.tracks.llara.data import (
    PAD_IDS,
    build_from_interactions,
    load_id2name,
    load_ml100k_titles,
    ml100k_title,
    read_llara_rows,
    sequences_excluding,
    Example,
)


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("Toy Story (1995)", "Toy Story"),
        ("Usual Suspects, The (1995)", "The Usual Suspects"),
        ("Birdcage, The (1996)", "The Birdcage"),
        # LLaRA's get_mv_title garbled this one ("A Affair to Remembern"); the shared display form does not
        ("Affair to Remember, An (1957)", "An Affair to Remember"),
        ("Postino, Il (1994)", "Il Postino"),
        ("unknown", ""),
        ("Heidi Fleiss: Hollywood Madam (1995) ", "Heidi Fleiss: Hollywood Madam"),
    ],
)
def test_ml100k_title(raw, expected):
    assert ml100k_title(raw) == expected


def test_ml100k_titles_real(shared_data):
    names = load_ml100k_titles(shared_data / "movielens-100k" / "raw" / "u.item")
    assert len(names) == 1682 and min(names) == 0 and max(names) == 1681
    assert names[0] == "Toy Story"  # movie_id 1 -> LLaRA id 0
    assert names[11] == "The Usual Suspects"
    # one title form: no MovieLens trailing article is left (389 of 1,682 titles are rewritten)
    assert not [t for t in names.values() if re.search(r", (The|A|An|La|Le|Les|Il|Der|Das)(\s*\(|\)|$)", t)]
    assert names[176] == "The Good, The Bad and The Ugly"


def test_released_sets_real(ml_set, lastfm_set, steam_set):
    assert len(ml_set.test) == 95 and ml_set.n_dropped_short == 0
    assert len(lastfm_set.test) == 122
    assert len(steam_set.test) == 1186 and steam_set.n_dropped_short == 8  # len_seq < 3, as LLaRA
    first = ml_set.test[0]
    assert first.history[0] == 704 and first.next == 3 and len(first.history) == 10
    for ds in (ml_set, lastfm_set, steam_set):
        pad = PAD_IDS[ds.name]
        assert all(pad not in ex.history and len(ex.history) >= 3 for ex in ds.test)
    assert len(lastfm_set.train) > 40_000
    # Steam: first 1000 train rows as released + every prefix of the 1194 Val sequences
    assert len(steam_set.train) == 1000 + 10090


def _write(tmp_path, lines, name="Test_data.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.mark.parametrize(
    "line,msg",
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"seq": [1, 2], "len_seq": 2, "next": 3}), "list of 10"),
        (json.dumps({"seq": [1, 4606, 2] + [4606] * 7, "len_seq": 2, "next": 3}), "padding"),
        (json.dumps({"seq": [1, 2, 3] + [4606] * 7, "len_seq": 5, "next": 3}), "len_seq is 5"),
        (json.dumps({"seq": ["a"] + [4606] * 9, "len_seq": 1, "next": 3}), "integer"),
        (json.dumps({"seq": [1] + [4606] * 9, "len_seq": 1}), "missing field 'next'"),
    ],
)
def test_malformed_rows_name_file_and_line(tmp_path, line, msg):
    good = json.dumps({"row_index": 0, "seq": [1, 2, 3] + [4606] * 7, "len_seq": 3, "next": 5})
    p = _write(tmp_path, [good, line])
    with pytest.raises(DataError, match=rf"Test_data\.jsonl:2: .*{msg}"):
        read_llara_rows(p, "lastfm")


def test_released_quirk_empty_history_is_accepted(tmp_path):
    # Steam test row 914: len_seq 1 but all padding; LLaRA's len_seq >= 3 filter drops it.
    p = _write(tmp_path, [json.dumps({"seq": [3581] * 10, "len_seq": 1, "next": 7})])
    assert read_llara_rows(p, "steam")[0]["history"] == []


def test_id2name_errors(tmp_path):
    p = tmp_path / "id2name.txt"
    p.write_text("0::A\n1 B\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"id2name\.txt:2"):
        load_id2name(p)
    p.write_text("0:: Spaced \n", encoding="utf-8")
    assert load_id2name(p) == {0: "Spaced"}


def _toy_interactions():
    rows = []
    for u, items in {"u1": ["a", "b", "c", "d", "e", "f"], "u2": ["b", "c", "d", "e"], "u3": ["a", "f"]}.items():
        for t, i in enumerate(items):
            rows.append({"user_id": u, "item_id": i, "rating": 5.0, "timestamp": 100 + t})
    items = pd.DataFrame({"item_id": list("abcdefg"), "title": [f"Title {c.upper()}" for c in "abcdefg"]})
    return pd.DataFrame(rows), items


def test_build_from_interactions_is_chronological_leave_one_out():
    inter, items = _toy_interactions()
    ds = build_from_interactions(inter, items, seq_len=3, min_len_seq=3)
    idx = {iid: k for k, iid in enumerate(ds.item_ids)}
    test = {ex.user_id: ex for ex in ds.test}
    val = {ex.user_id: ex for ex in ds.val}
    # u1: a b c d e f -> test f with history c d e; val e with history b c d
    assert test["u1"].next == idx["f"] and test["u1"].history == (idx["c"], idx["d"], idx["e"])
    assert val["u1"].next == idx["e"]
    # u2 has 4 items: test e with history (b c d); u3 has 2 items: history too short for test
    assert set(test) == {"u1", "u2"}
    # no training example of a user contains or targets that user's val/test item
    for ex in ds.train:
        held = {test[ex.user_id].next, val[ex.user_id].next} if ex.user_id in test else set()
        assert ex.next not in held and not held & set(ex.history)
    assert ds.item_names[idx["a"]] == "Title A"
    assert set(test["u1"].seen) == {idx[c] for c in "abcdef"}


def test_build_from_interactions_needs_titles():
    inter, items = _toy_interactions()
    with pytest.raises(DataError, match="no title"):
        build_from_interactions(inter, items[items.item_id != "a"])


def test_sequences_excluding_drops_possible_test_authors():
    df = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3], "item_id": [5, 6, 7, 5, 6, 9], "timestamp": range(6)})
    seqs, n_ex = sequences_excluding(df, [Example(qid="q", history=(5,), next=6)])
    assert n_ex == 2 and seqs == [[9]]
