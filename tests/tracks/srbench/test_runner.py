"""The runner on real ML-100K: NN baselines through the Recommender adapter, and scoring of the
records (LLM-SR: tests/tracks/srbench/test_llm.py)."""

import pytest

from lrworld.tracks.srbench import runner


def test_popularity_runs_and_scores(ml100k_split):
    sd = ml100k_split
    recs = runner.run_recommender(lambda: runner.make_recommender("popularity"), sd, k=20, seeds=[0, 1])
    assert len(recs) == 2 * 943 and all(len(r["items"]) == 20 for r in recs)
    hist = sd.histories()
    assert all(not set(r["items"]) & set(hist[r["user_id"]]) for r in recs[:50])  # seen items excluded
    s = runner.score_records(recs, sd, [5, 10])
    assert s["n_runs"] == 2 and s["n_users"] == 943
    assert s["K=10"]["arr"] == 1.0  # deterministic
    assert 0.05 < s["K=10"]["recall"] < 0.09
    assert s["K=10"]["arq"] > 3.0 and s["K=10"]["arqv"] >= 0


def test_records_must_cover_same_users(ml100k_split):
    recs = [{"run": 0, "user_id": "1", "items": [], "latency_s": 0}, {"run": 1, "user_id": "2", "items": [], "latency_s": 0}]
    with pytest.raises(ValueError, match="other users"):
        runner.score_records(recs, ml100k_split, [5])


def test_sequential_adapter_needs_module():
    rec = runner.make_recommender("gru4rec", {"epochs": 1})
    assert isinstance(rec, runner.SequentialRecommender)
    with pytest.raises(ValueError):
        runner.make_recommender("bert4rec")


def test_sequential_adapter_learns_a_cycle():
    """The real GRU4Rec through the adapter: on sequences where item i is always followed by
    item i+1 (mod 12), the held-out next item is ranked first for most users."""
    import pandas as pd
    import torch

    from lrworld.tracks.srbench.data import make_split

    torch.set_num_threads(1)
    rows = [(f"u{u}", str((u + t) % 12), t) for u in range(60) for t in range(8)]
    inter = pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]).assign(rating=float("nan"))
    items = pd.DataFrame({"item_id": [str(i) for i in range(12)], "title": [f"item {i}" for i in range(12)]})
    sd = make_split(inter, items, "cycle")
    rec = runner.make_recommender("gru4rec", {"epochs": 30, "max_len": 5, "hidden": 32})
    rec.fit(sd, seed=0)
    users = sd.eval_users
    lists = rec.recommend(users, sd.histories(), k=1)
    hits = 0
    for u, lst in zip(users, lists):
        last = sd.histories()[u][-1]
        hits += lst[0] == str((int(last) + 1) % 12)
    assert hits >= 0.8 * len(users), (hits, len(users))


