from lrworld.tracks.llara.candidates import draw_candidates, summary
from lrworld.tracks.llara.data import LlaraSet, Example
from lrworld.inference.stage import to_item
from lrworld.tracks.llara.prompts import build_prompts, load_template, render, template_path

import pytest


def test_frozen_candidates_real(ml_set, ml_cands):
    assert len(ml_cands) == 95
    for rec, ex in zip(ml_cands, ml_set.test):
        c = rec["candidates"]
        assert len(c) == 20 and len(set(c)) == 20
        assert c.count(ex.next) == 1 and c[rec["gold_index"]] == ex.next
        assert not set(c) - {ex.next} & set(ex.history)  # negatives: not interacted with
        assert rec["candidate_titles"] == [ml_set.item_names[i] for i in c]
        assert all(t.strip() for t in rec["candidate_titles"])  # "unknown" ("" in LLaRA) never drawn
    again = draw_candidates(ml_set, seed=0)
    assert again == ml_cands  # frozen: same seed, same sets
    other = draw_candidates(ml_set, seed=1)
    assert [r["candidates"] for r in other] != [r["candidates"] for r in ml_cands]
    # a question's draw does not depend on which other questions are drawn with it
    assert draw_candidates(ml_set, ml_set.test[5:6], seed=0)[0] == ml_cands[5]


def test_gold_positions_are_spread(lastfm_cands):
    positions = {r["gold_index"] for r in lastfm_cands}
    assert len(positions) > 10


def test_ambiguity_is_flagged_and_counted(ml_cands, lastfm_cands):
    for recs in (ml_cands, lastfm_cands):
        s = summary(recs)
        assert s["n_ambiguous_sets"] == sum(r["ambiguous"] for r in recs)
        for r in recs:
            for i, j in r["ambiguous_pairs"]:
                assert r["candidate_titles"][i].strip().lower() in r["candidate_titles"][j].strip().lower()
    toy = LlaraSet(name="toy", item_names={0: "Alien", 1: "Aliens", 2: "Heat", 3: "Fargo"},
                   test=[Example(qid="q", history=(2,), next=3)])
    rec = draw_candidates(toy, n=3, seed=0)[0]
    assert rec["ambiguous"] and len(rec["ambiguous_pairs"]) == 1


def test_too_few_items_is_an_error():
    toy = LlaraSet(name="toy", item_names={0: "A", 1: "B"}, test=[Example(qid="q", history=(0,), next=1)])
    with pytest.raises(ValueError, match="need 19"):
        draw_candidates(toy, seed=0)


def test_templates_are_data_files():
    for name in ("movielens", "steam", "lastfm", "generic"):
        t = load_template(name)
        assert t.count("[HistoryHere]") == 1 and t.count("[CansHere]") == 1
    assert "Choose only one artist from the candidates" in load_template("lastfm")
    assert template_path("lastfm").parent.name == "llara"
    with pytest.raises(FileNotFoundError):
        load_template("nope")


def test_render_and_prompt_items(lastfm_cands):
    t = "H: [HistoryHere]. C ([CansNum]): [CansHere]."
    assert render(t, ["a", "b"], ["x", "y", "z"]) == "H: a, b. C (3): x, y, z."
    assert render(t, ["a"], ["x"], item_suffix=" [HistoryEmb]") == "H: a [HistoryEmb]. C (1): x [HistoryEmb]."
    prompts = build_prompts(lastfm_cands, "lastfm")
    p0, c0 = prompts[0], lastfm_cands[0]
    assert p0["prompt"].startswith("This user has listened to " + ", ".join(c0["history_titles"]))
    assert ", ".join(c0["candidate_titles"]) in p0["prompt"] and p0["prompt"].endswith("The answer is")
    item = to_item(p0)
    assert item.labels == tuple(c0["candidate_titles"]) == item.candidates


def test_no_two_candidates_read_the_same(ml_set):
    """ML-100K lists some films twice (two ids, one title): such a pair is never shown in one set."""
    from lrworld.core.display import display_key

    recs = draw_candidates(ml_set, seed=0)
    for r in recs:
        keys = [display_key(t) for t in r["candidate_titles"]]
        assert len(set(keys)) == len(keys), r["qid"]
    s = summary(recs)
    # each row's history items and its target are kept out of its pool
    titled = {i for i, t in ml_set.item_names.items() if t}
    assert s["known_items_excluded"] == sum(len({*ex.history, ex.next} & titled) for ex in ml_set.test) > 0
    # the draws are named by dataset: another name, other candidates
    other = draw_candidates(type(ml_set)(**{**ml_set.__dict__, "name": "renamed"}), seed=0)
    assert [r["candidates"] for r in other] != [r["candidates"] for r in recs]
