import logging

import numpy as np
import pandas as pd
import torch

from lrworld.data.contract import finalize_interactions
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
