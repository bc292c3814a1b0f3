"""The issue's acceptance check on real ML-100K: every NN baseline beats popularity on
Recall@10 and NDCG@10, and popularity has the highest ARP. Trains NCF, NGCF and LightGCN with
the documented settings (20 epochs, Adam lr 1e-3, seed 0): a few minutes on 2 busy cores."""

import pytest

from lrworld.tracks.srbench import runner

SETTINGS = {"ncf": {"epochs": 20}, "ngcf": {"epochs": 20, "batch_size": 4096}, "lightgcn": {"epochs": 20, "batch_size": 4096}}


@pytest.mark.slow
def test_nn_baselines_beat_popularity(ml100k_split):
    sd = ml100k_split
    scores = {}
    for name, spec in {"popularity": {}, **SETTINGS}.items():
        recs = runner.run_recommender(lambda: runner.make_recommender(name, spec), sd, k=10, seeds=[0])
        scores[name] = runner.score_records(recs, sd, [10])["K=10"]
    pop = scores.pop("popularity")
    for name, s in scores.items():
        assert s["recall"] > pop["recall"], name
        assert s["ndcg"] > pop["ndcg"], name
        assert s["arp"] < pop["arp"], name
