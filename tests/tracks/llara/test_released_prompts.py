"""A released checkpoint on LLaRA's MovieLens test set is asked exactly what LLaRA's own code asks:
LLaRA's MovielensData (its u.item titles, its Test_data.df layout: (item_id, rating) tuples padded
with (1682, 0)) and TrainCollater, run from a copy of its source, write the same 95 prompts byte for
byte as lrworld's `released` requests, given the same candidates and the instruction drawn."""

import collections

import pandas as pd
import pytest

from lrworld.core.io import read_jsonl
from lrworld.core.schema import ConfigError
from lrworld.tracks.llara.candidates import draw_candidates
from lrworld.tracks.llara.data import load_released
from lrworld.tracks.llara.hybrid import released_entry
from lrworld.tracks.llara.hybrid.requests import build_requests
from lrworld.tracks.llara.prompts import RELEASED_TEMPLATES
from tests.tracks.llara.llara_source import lines, movielens_data, train_collater


def _llara_frame(jsonl, out):
    """The jsonl twin back in LLaRA's pickle layout (seq: (item_id, rating) tuples; next: a tuple)."""
    rows = read_jsonl(jsonl)
    df = pd.DataFrame({"seq": [[tuple(p) for p in r["seq"]] for r in rows], "len_seq": [r["len_seq"] for r in rows],
                       "next": [tuple(r["next"]) for r in rows]}, index=[r["row_index"] for r in rows])
    df.to_pickle(out)
    return out


class _Recorder:
    """Stands in for the tokenizer: keeps the texts TrainCollater hands it."""

    def __init__(self):
        self.texts = []

    def __call__(self, texts, **kw):
        self.texts += list(texts)
        return {}


def test_released_movielens_prompts_are_llaras_byte_for_byte(shared_data, tmp_path):
    root = shared_data / "llara" / "movielens"
    u_item = shared_data / "movielens-100k" / "raw" / "u.item"
    ds = load_released("movielens", {"path": str(root), "titles": str(u_item), "title_form": "llara"})
    cands = draw_candidates(ds, seed=0)
    reqs = build_requests(cands, released_entry.template("movielens", {"path": str(root)}), "released", 0, "movielens")

    # LLaRA's data module on its own layout: data_dir with u.item and Test_data.df
    (tmp_path / "u.item").symlink_to(u_item)
    MovielensData = movielens_data()
    llara = MovielensData.__new__(MovielensData)
    llara.__dict__.update(data_dir=str(tmp_path), stage="test", cans_num=20, sep=", ", padding_item_id=1682,
                          padding_rating=0)
    id2name = llara.get_movie_id2name()
    assert id2name == ds.item_names  # LLaRA's 1,682 titles, garbles included
    session = llara.session_data4frame(_llara_frame(root / "Test_data.jsonl", tmp_path / "Test_data.df"), id2name)
    assert len(session) == len(reqs) == 95

    instructions = lines("prompt/movie.txt")
    TrainCollater = train_collater()
    for (row_index, temp), req, cand in zip(session.iterrows(), reqs, cands):
        assert req["qid"] == f"movielens:test:{row_index}"
        sample = {"seq": temp["seq"], "seq_name": temp["seq_title"], "len_seq": temp["len_seq"],
                  "cans": cand["candidates"], "cans_name": [id2name[c] for c in cand["candidates"]],
                  "len_cans": 20, "item_id": temp["next"], "correct_answer": temp["next_item_name"]}
        tok = _Recorder()
        # one instruction in the list: LLaRA's random.choice returns the one this question drew
        TrainCollater(prompt_list=[instructions[req["instruction_line"] - 1]], llm_tokenizer=tok, train=False)([sample])
        assert tok.texts == [req["prompt"]]
        assert req["history_items"] == temp["seq_unpad"] and req["gold_title"] == temp["next_item_name"]
        assert req["candidates"] == sample["cans_name"]
    # every instruction of the file is drawn (LLaRA's test draws one of the three per batch)
    assert sorted(collections.Counter(r["instruction_line"] for r in reqs)) == [1, 2, 3]


def test_a_released_checkpoint_needs_llaras_titles_and_20_candidates(shared_data):
    root = str(shared_data / "llara" / "movielens")
    models = {"llama": {"backend": "hf", "model": "x"}}
    entry = {"name": "rel", "base": "llama", "datasets": {"movielens": {"ckpt": {"path": "a"}, "rec_model": {"path": "b"}}}}
    with pytest.raises(ConfigError, match=r"^config: llara.datasets.movielens.title_form: .*set title_form: llara$"):
        released_entry.check(entry, models, {"movielens": {"path": root}}, set(), 20)
    with pytest.raises(ConfigError, match=r"^config: llara.n_candidates: 10, .*--cans_num"):
        released_entry.check(entry, models, {"movielens": {"path": root, "title_form": "llara"}}, set(), 10)
    assert released_entry.check(entry, models, {"movielens": {"path": root, "title_form": "llara"}}, set(), 20)
    assert released_entry.template("movielens", {"path": root}) == RELEASED_TEMPLATES["movielens"] == "released/movie"
    assert released_entry.template("toy", {"interactions": "i", "template": "generic"}) == "generic"
