"""The neural golds are recomputed from the saved NeuMF weights (neumf.pt), the rawest artifact:
embeddings.parquet edited for two items, with prototypes and questions rebuilt from it, passes
against embeddings.parquet and fails against the weights."""

import numpy as np
import pandas as pd
import torch

from lrworld.audit.report import audit_dataset
from lrworld.groundtruth.artifacts import read
from lrworld.groundtruth.neumf import embeddings_frame, train_neumf_seeds
from lrworld.groundtruth.prototypes import prototype_candidates
from lrworld.groundtruth.questions import build_neu_user2items_questions


def _inter():
    rng = np.random.default_rng(3)
    return pd.DataFrame([(f"u{u}", f"i{i}", 4.0, t) for u in range(40)
                         for t, i in enumerate(rng.choice(60, size=10, replace=False))],
                        columns=["user_id", "item_id", "rating", "timestamp"])


def _audit(qs, inter, arts):
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(60)], "title": [f"Film {k}" for k in range(60)],
                          "year": 2000})
    questions = {"neu_user2items": ("results/questions/d/neu_user2items.jsonl", qs)}
    return audit_dataset("d", "movie", questions, [], {}, inter, items, {}, arts)[1]


def test_embeddings_edited_after_training_fail_against_the_weights(tmp_path):
    inter = _inter()
    res = train_neumf_seeds(inter, seeds=1, seed=0, dataset="d", epochs=1, device="cpu", eval_users=10,
                            log=lambda *a: None)
    (tmp_path / "neumf.pt").parent.mkdir(exist_ok=True)
    torch.save(res, tmp_path / "neumf.pt")
    weights = read(str(tmp_path / "neumf.pt"))  # what the audit rule reads neumf.pt as
    emb = embeddings_frame(res)
    pd.testing.assert_frame_equal(weights, emb)

    protos, _ = prototype_candidates(emb, inter, "neu_user2items", n_targets=4, k=3, n_positives=3, dataset="d")
    qs, _ = build_neu_user2items_questions(inter, protos, 4, 0, "d")
    assert qs and _audit(qs, inter, {"prototypes": protos, "embeddings": emb, "neumf": weights}) == []

    # two items' vectors edited: each becomes the first question's target user's own vector, so the
    # rebuilt golds follow the edit
    target = qs[0]["context"]["target_user"]
    user_vec = emb.loc[(emb.kind == "user") & (emb.id == target), "gmf"].iat[0]
    met = set(inter.loc[inter.user_id == target, "item_id"])
    edited_ids = [i for i in (f"i{k}" for k in range(60)) if i not in met][:2]
    edited = emb.copy()
    for i in edited_ids:
        edited.at[edited.index[(edited.kind == "item") & (edited.id == i)][0], "gmf"] = np.asarray(user_vec) * 1.0
    protos2, _ = prototype_candidates(edited, inter, "neu_user2items", n_targets=4, k=3, n_positives=3, dataset="d")
    qs2, _ = build_neu_user2items_questions(inter, protos2, 4, 0, "d")
    shown = {c for q in qs2 for c in q["candidates"]}
    assert set(edited_ids) & shown
    # the rebuilt files agree with the edited embeddings: an audit that stops there passes them
    assert _audit(qs2, inter, {"prototypes": protos2, "embeddings": edited}) == []
    v = _audit(qs2, inter, {"prototypes": protos2, "embeddings": edited, "neumf": weights})
    checks = {x.check for x in v}
    assert "embeddings_differ_from_weights" in checks and checks <= {
        "embeddings_differ_from_weights", "artifact_differs_from_embeddings", "gold_not_argmax"}
    line = next(x for x in v if x.check == "embeddings_differ_from_weights").detail
    assert any(f"item {i}" in line for i in edited_ids)
