"""The runner on real ML-100K: NN baselines through the Recommender adapter, and scoring of the
records (LLM-SR: tests/tracks/srbench/test_llm.py)."""

import pytest

from lrworld.tracks.srbench import runner, steps


def spec(name, **settings):
    """A baseline's settings with the schema's defaults, as the workflow passes them."""
    return steps.settings({"srbench": {"baselines": {name: settings}}})["baselines"][name]


def test_popularity_runs_and_scores(ml100k_split):
    sd = ml100k_split
    recs = []
    for seed in (0, 1):
        part, training = runner.run_baseline(runner.make_recommender("popularity", {}), sd, k=20, seed=seed)
        recs += part
        assert training["epochs_run"] == 0 and training["seed"] == seed
    assert len(recs) == 2 * 943 and all(len(r["items"]) == 20 for r in recs)
    assert {r["run"] for r in recs} == {0, 1}
    hist = sd.histories()
    assert all(not set(r["items"]) & set(hist[r["user_id"]]) for r in recs[:50])  # seen items excluded
    s = runner.score_records(recs, sd, [5, 10])
    assert s["n_runs"] == 2 and s["n_users"] == 943
    assert s["K=10"]["arr"] == 1.0  # deterministic
    assert 0.05 < s["K=10"]["recall"] < 0.09
    assert s["K=10"]["arq"] > 3.0 and s["K=10"]["arqv"] >= 0
    assert s["K=10"]["recall_se"] == 0.0 and s["K=10"]["per_run"]["recall"] == [s["K=10"]["recall"]] * 2
    sample = steps.select_users(sd, 100)
    s100 = runner.score_records(recs, sd, [10], users=sample)
    assert s100["n_users"] == 100 and s100["K=10"]["recall"] != s["K=10"]["recall"]


def test_records_must_cover_same_users(ml100k_split):
    recs = [{"run": 0, "user_id": "1", "items": [], "latency_s": 0}, {"run": 1, "user_id": "2", "items": [], "latency_s": 0}]
    with pytest.raises(ValueError, match="other users"):
        runner.score_records(recs, ml100k_split, [5])


def test_make_recommender():
    rec = runner.make_recommender("gru4rec", spec("gru4rec", max_epochs=1))
    assert isinstance(rec, runner.SequentialRecommender) and rec.max_epochs == 1 and rec.max_len == 50
    assert runner.make_recommender("lightgcn", spec("lightgcn")).loss_hp == {"reg": 1e-4}
    with pytest.raises(ValueError):
        runner.make_recommender("bert4rec", {})


def test_sequential_adapter_learns_a_cycle():
    """The real GRU4Rec through the adapter, stopped early on the valid split: on sequences where
    item i is always followed by item i+1 (mod 12), the held-out next item is ranked first for
    most users."""
    import pandas as pd
    import torch

    from lrworld.tracks.srbench.data import make_split

    torch.set_num_threads(1)
    rows = [(f"u{u}", str((u + t) % 12), t) for u in range(60) for t in range(8)]
    inter = pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]).assign(rating=float("nan"))
    items = pd.DataFrame({"item_id": [str(i) for i in range(12)], "title": [f"item {i}" for i in range(12)]})
    sd = make_split(inter, items, "cycle")
    rec = runner.make_recommender("gru4rec", spec("gru4rec", max_epochs=30, patience=5, max_len=5, hidden=32, lr=0.01))
    tr = rec.fit(sd, seed=0)
    assert tr.valid_metric == "ndcg@10" and tr.valid_curve[tr.best_epoch - 1] == max(tr.valid_curve)
    users = sd.eval_users
    lists = rec.recommend(users, sd.histories(), k=1)
    hits = 0
    for u, lst in zip(users, lists):
        last = sd.histories()[u][-1]
        hits += lst[0] == str((int(last) + 1) % 12)
    assert hits >= 0.8 * len(users), (hits, len(users))




def _planted_split(seed=0):
    """Two communities: 30 users meet 6 of items 0..9, 20 users 6 of items 10..19, in a random
    order. Popularity ranks the bigger community's items first for everyone; a model of the
    user-item graph recommends each user the rest of their own community."""
    import numpy as np
    import pandas as pd

    from lrworld.tracks.srbench.data import make_split

    rng = np.random.default_rng(seed)
    rows = []
    for u in range(50):
        base = 0 if u < 30 else 10
        for t, i in enumerate(rng.choice(10, 6, replace=False)):
            rows.append((f"u{u:02d}", str(base + int(i)), float(rng.integers(1, 6)), t))
    inter = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])
    items = pd.DataFrame({"item_id": [str(i) for i in range(20)], "title": [f"item {i}" for i in range(20)]})
    return make_split(inter, items, "planted")


def test_lightgcn_beats_popularity_on_planted_communities():
    sd = _planted_split()
    small = [u for u in sd.eval_users if int(u[1:]) >= 30]
    scores, trainings = {}, {}
    for name, settings in (("popularity", {}), ("lightgcn", spec("lightgcn", max_epochs=200, patience=20, lr=0.01,
                                                                   batch_size=64, dim=16))):
        recs, trainings[name] = runner.run_baseline(runner.make_recommender(name, settings), sd, k=3, seed=0)
        scores[name] = (runner.score_records(recs, sd, [3])["K=3"]["recall"],
                        runner.score_records(recs, sd, [3], users=small)["K=3"]["recall"])
    # Each user has 4 unseen items of their own community, one of them the test item: ranking those
    # first hits with probability 3/4 at K=3. Popularity offers everyone the bigger community's items,
    # so it never hits for the 20 users of the smaller one.
    assert scores["popularity"][1] == 0.0
    assert scores["lightgcn"][1] >= 0.5
    assert scores["lightgcn"][0] > scores["popularity"][0] + 0.1
    t = trainings["lightgcn"]
    assert 1 <= t["best_epoch"] <= t["epochs_run"] <= 200 and len(t["valid_curve"]) == t["epochs_run"]
