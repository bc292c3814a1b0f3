"""The pipeline steps end to end on a Yelp-format fixture (and, marked slow, through Snakemake)."""

import pandas as pd
import pytest
import yaml

from lrworld.core import io
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache
from lrworld.models import make_backend
from lrworld.tracks.srbench import data as D
from lrworld.tracks.srbench import steps
from tests.graph import snakemake
from tests.support.fixtures_yelp import write_yelp_fixture


def _config(tmp_path):
    rp, bp = write_yelp_fixture(tmp_path / "yelp", n_users=40, n_businesses=30, reviews_per_user=8, seed=2)
    return {
        "models": {"rnd": {"backend": "random", "seed": 0}},
        "srbench": {
            "datasets": {"yelp": {"loader": "yelp", "review": str(rp), "business": str(bp), "kcore": 3}},
            "ks": [5, 10], "runs": 3, "nn_runs": 2,
            "baselines": {"popularity": {}, "lightgcn": {"max_epochs": 3, "patience": 1}},
            "llm": {"models": ["rnd"], "modes": ["few_shot"]},
        },
    }


def test_steps_end_to_end(tmp_path):
    cfg = _config(tmp_path)
    out = tmp_path / "results"
    sp, ip = out / "split.parquet", out / "items.parquet"
    steps.split("yelp", cfg["srbench"]["datasets"]["yelp"], sp, ip)
    sd = steps.load_split(sp, ip, "yelp")
    assert set(sd.interactions["split"]) == {"train", "valid", "test"} and isinstance(sd.items["genres"].iloc[0], list)
    names = steps.recommenders(cfg)
    assert names == ["popularity", "lightgcn", "rnd__few_shot"] and steps.nn_seeds(cfg) == [0, 1]
    # the LLM row: requests, the answer rule's work (the inference stage), then the lists
    steps.llm_prompts("yelp", "few_shot", sp, ip, out / "few_shot.jsonl", steps.settings(cfg) | {"max_history": None})
    info = fill_cache(io.read_jsonl(out / "few_shot.jsonl"), lambda: make_backend("rnd", cfg["models"]["rnd"]),
                      ResponseCache(tmp_path / "cache" / "rnd.sqlite"))
    steps.llm_lists("yelp", "rnd", sp, ip, out / "few_shot.jsonl", info["identity"], tmp_path / "cache",
                    out / "rnd__few_shot.jsonl", 10)
    paths = []
    for n in names:
        if n in steps.baselines(cfg):
            lists = [out / f"{n}.seed{s}.jsonl" for s in steps.nn_seeds(cfg)]
            training = [out / f"{n}.seed{s}.training.json" for s in steps.nn_seeds(cfg)]
            for s, lp, tp in zip(steps.nn_seeds(cfg), lists, training):
                steps.baseline("yelp", n, s, sp, ip, lp, tp, cfg)
        else:
            lists, training = [out / f"{n}.jsonl"], []
        steps.score("yelp", sp, ip, lists, out / f"{n}.json", cfg, training_paths=training)
        paths.append(out / f"{n}.json")
    recs = io.read_jsonl(out / "rnd__few_shot.jsonl")
    assert {r["run"] for r in recs} == {0, 1, 2} and "raw_text" in recs[0]
    assert {r["seed"] for r in io.read_jsonl(out / "lightgcn.seed1.jsonl")} == {1}
    lg = io.read_json(out / "lightgcn.json")
    assert lg["n_runs"] == 2 and [t["seed"] for t in lg["training"]] == [0, 1]
    assert all(t["max_epochs"] == 3 and t["patience"] == 1 and 1 <= t["best_epoch"] <= t["epochs_run"] <= 3
               and t["valid_metric"] == "ndcg@10" for t in lg["training"])
    assert len(lg["K=5"]["per_run"]["recall"]) == 2 and "recall_se" in lg["K=5"]
    steps.table(names, paths, out / "t.csv", out / "t.md", cfg, "yelp")
    t = pd.read_csv(out / "t.csv", index_col=0)
    assert list(t.index) == names and "total_points" in t.columns and "ndcg@10" in t.columns
    assert t.at["lightgcn", "epochs_run"] == sum(x["epochs_run"] for x in lg["training"]) / 2
    assert t.at["lightgcn", "recall_se@5"] == lg["K=5"]["recall_se"] and "recall_se@5_points" not in t.columns
    md = (out / "t.md").read_text()
    assert "Rank-sum" in md and " ± " in md and "recall_se" not in md


def test_select_users_is_seeded(ml100k_split):
    a = steps.select_users(ml100k_split, 50)
    assert a == steps.select_users(ml100k_split, 50) and len(a) == 50 and a == sorted(a, key=ml100k_split.eval_users.index)
    assert steps.select_users(ml100k_split, None) == ml100k_split.eval_users


@pytest.mark.slow
def test_snakemake_graph(tmp_path, shared_data):
    """The SRBench rules inside the real graph, on the Yelp-format fixture."""
    cfg = _config(tmp_path)
    cfg["datasets"] = {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                              "source": {"path": str(shared_data / "movielens-100k/raw")}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, "results/tables/srbench_yelp.md")
    assert "| popularity |" in (tmp_path / "results/tables/srbench_yelp.md").read_text()
