import logging

import numpy as np
import pandas as pd
import pytest
import torch

from lrworld.core.tensors import load_tensors, save_tensors
from lrworld.data.contract import finalize_interactions
from lrworld.groundtruth import neumf
from lrworld.groundtruth.neumf import embedding_matrix, leave_one_out, train_neumf
from lrworld.groundtruth.transactions import index_interactions


def _tiny():
    rng = np.random.default_rng(0)
    rows = [(f"u{u}", f"i{rng.integers(0, 30)}", t) for u in range(20) for t in range(8)]
    return finalize_interactions(pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]), "fx")


def test_leave_one_out_holds_out_last_interaction():
    inter = _tiny()
    held = leave_one_out(index_interactions(inter))
    assert held.sum() == 20
    last = inter.groupby("user_id").tail(1).index
    assert set(np.flatnonzero(held)) == set(last)


def test_training_is_seeded_and_logged(caplog):
    caplog.set_level(logging.INFO, logger="lrworld.progress")
    a = train_neumf(_tiny(), epochs=2, factors=4, layers=(8, 4), batch_size=64, seed=3, device="cpu",
                    eval_users=20, log=lambda *_: None)
    b = train_neumf(_tiny(), epochs=2, factors=4, layers=(8, 4), batch_size=64, seed=3, device="cpu",
                    eval_users=20, log=lambda *_: None)
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k])
    assert [r["epoch"] for r in a["log"]] == [1, 2] and all(r["loss"] > 0 for r in a["log"])
    assert 0.0 <= a["hr10"] <= 1.0
    progress = [r.getMessage() for r in caplog.records if r.name == "lrworld.progress"]
    assert progress[-1].startswith("neumf: 100%|") and "batch/s" in progress[-1]


def test_one_training_saved_twice_writes_the_same_bytes(tmp_path):
    # what the neumf rule writes: a resumed build's neumf.pt must carry the clean build's digest
    res = neumf.train_neumf_seeds(_tiny(), seeds=1, dataset="fx", epochs=1, factors=4, layers=(8, 4),
                                  batch_size=64, device="cpu", eval_users=20, log=lambda *_: None)
    a, b = tmp_path / "a" / "neumf.pt", tmp_path / "b" / "neumf.pt"
    save_tensors(res, a)
    save_tensors(res, b)
    assert a.read_bytes() == b.read_bytes()
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["neumf.pt", "neumf.pt"]  # no temp left
    back = load_tensors(a)["seeds"][0]
    assert all(torch.equal(back["state_dict"][k], v) for k, v in res["seeds"][0]["state_dict"].items())


def test_ml100k_sanity_hr10_beats_random(ml100k_neumf):
    res, emb = ml100k_neumf
    assert res["log"][-1]["loss"] < res["log"][0]["loss"]
    assert res["hr10"] > 0.25  # random ranking of 1 in 100 gives 0.10
    assert set(emb["kind"]) == {"user", "item"} and len(emb) == 943 + 1682


def test_neumf_answer_has_highest_embedding_cosine(ml100k, ml100k_neumf, ml100k_questions):
    _, emb = ml100k_neumf
    hist = ml100k[0].groupby("user_id")["item_id"].agg(set)
    for measure, tk, ck in [("neu_item2users", "item", "user"), ("neu_user2items", "user", "item")]:
        t_ids, T = embedding_matrix(emb, tk)
        c_ids, C = embedding_matrix(emb, ck)
        tpos = {x: i for i, x in enumerate(t_ids)}
        cpos = {x: i for i, x in enumerate(c_ids)}
        qs = ml100k_questions[measure]
        assert len(qs) == 200
        for q in qs:
            t = q["context"][f"target_{tk}"]
            tv = T[tpos[t]]
            cv = C[[cpos[c] for c in q["candidates"]]]
            cos = cv @ tv / (np.linalg.norm(cv, axis=1) * np.linalg.norm(tv))
            assert int(np.argmax(cos)) == q["answer_index"]
            assert np.sort(cos)[-1] > np.sort(cos)[-2]
            if tk == "user":
                assert not set(q["candidates"]) & hist[t]  # never an item from the user's history


class _Nudged(neumf.NeuMF):
    """NeuMF whose weights move by one ulp of the training precision once they take it: what another
    CPU's kernels, another thread count or a GPU do to a training (by rounding) from the first step."""

    def to(self, *args, **kwargs):
        model = super().to(*args, **kwargs)
        with torch.no_grad():
            for p in model.parameters():
                p.add_(p * torch.finfo(p.dtype).eps)
        return model


def _trained_pair(monkeypatch) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The stored embeddings of a training and of the same training nudged by one ulp."""
    kw = dict(epochs=3, factors=4, layers=(8, 4), batch_size=32, seed=3, device="cpu", eval_users=20,
              log=lambda *_: None)
    with monkeypatch.context() as m:
        plain = train_neumf(_tiny(), **kw)
        m.setattr(neumf, "NeuMF", _Nudged)
        nudged = train_neumf(_tiny(), **kw)
    assert not torch.equal(plain["state_dict"]["gmf_user.weight"], nudged["state_dict"]["gmf_user.weight"])
    return neumf.embeddings_frame(plain), neumf.embeddings_frame(nudged)


def test_a_rounding_difference_does_not_reach_the_stored_embeddings(monkeypatch):
    # float64 training keeps a one-ulp difference far below float32's grid (ML-100K, 5 epochs:
    # 1e-14 relative in, < 1e-13 out); in float32 the same ulp grows to ~3e-6 (docs/groundtruth.md)
    assert neumf.DTYPE == torch.float64
    pd.testing.assert_frame_equal(*_trained_pair(monkeypatch))
    # the check can fail: trained in float32, the same nudge reaches the stored embeddings
    monkeypatch.setattr(neumf, "DTYPE", torch.float32)
    plain32, nudged32 = _trained_pair(monkeypatch)
    assert not plain32.equals(nudged32)


def test_predicted_preferences_are_the_models_own_output():
    # groundtruth.neural.gold: score reads NeuMF's whole model from its weights: the same logits as
    # the torch module's forward pass, for a user target (items) and an item target (users)
    res = neumf.train_neumf_seeds(_tiny(), seeds=2, dataset="fx", epochs=1, factors=4, layers=(8, 4),
                                  batch_size=64, device="cpu", eval_users=20, log=lambda *_: None)
    prefs = neumf.Preferences(res)
    for j, r in enumerate(res["seeds"]):
        model = neumf.NeuMF(len(r["user_ids"]), len(r["item_ids"]), 4, (8, 4)).double()
        model.load_state_dict(r["state_dict"])
        with torch.no_grad():
            by_items = model(torch.full((5,), 3), torch.arange(5)).numpy()
            by_users = model(torch.arange(6), torch.full((6,), 2)).numpy()
        assert np.allclose(prefs.logits("user", r["user_ids"][3], r["item_ids"][:5])[j], by_items, atol=1e-12)
        assert np.allclose(prefs.logits("item", r["item_ids"][2], r["user_ids"][:6])[j], by_users, atol=1e-12)
        # the score: the logit less the candidate's mean logit over every target (20 users < the sample)
        with torch.no_grad():
            mean_of_item0 = model(torch.arange(20), torch.zeros(20, dtype=torch.long)).numpy().mean()
        assert prefs.scores("user", r["user_ids"][3], r["item_ids"][:1])[j][0] == pytest.approx(by_items[0] - mean_of_item0)
    try:
        prefs.logits("user", "nobody", r["item_ids"][:2])
    except KeyError as exc:
        assert exc.args[0] == "user nobody"
    else:
        raise AssertionError("an unknown target must raise KeyError naming it")
