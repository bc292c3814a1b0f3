"""The issue's acceptance check on real ML-100K: every trained NN baseline beats popularity on
Recall@10 and NDCG@10, and popularity has the highest ARP. Trains NCF, NGCF and LightGCN with
the schema's settings (Adam lr 1e-3, early stopping on the valid split) but an epoch cap of 8 to
bound the time (the full runs stop at epochs 32-105: docs/srbench.md), seed 0: about 5 minutes on
2 busy cores."""

import pytest

from lrworld.tracks.srbench import runner, steps

BASELINES = {"popularity": {}, "ncf": {"max_epochs": 8}, "ngcf": {"max_epochs": 8}, "lightgcn": {"max_epochs": 8}}


@pytest.mark.slow
def test_nn_baselines_beat_popularity(ml100k_split):
    sd = ml100k_split
    specs = steps.settings({"srbench": {"baselines": BASELINES}})["baselines"]
    scores = {}
    for name, spec in specs.items():
        recs, _ = runner.run_baseline(runner.make_recommender(name, spec), sd, k=10, seed=0)
        scores[name] = runner.score_records(recs, sd, [10])["K=10"]
    pop = scores.pop("popularity")
    for name, s in scores.items():
        assert s["recall"] > pop["recall"], name
        assert s["ndcg"] > pop["ndcg"], name
        assert s["arp"] < pop["arp"], name
