"""The track end to end in a temporary folder: candidates -> prompts -> answers (random backend)
-> baseline -> scores -> table, on LLaRA's MovieLens set and on a set built from parquet tables."""

import json

import pandas as pd
import pytest

from lrworld.core.io import read_json, read_jsonl
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache
from lrworld.models import make_backend
from lrworld.tracks.llara import pipeline as P


def test_released_movielens_end_to_end(tmp_path, shared_data, llara_cfg_for):
    cfg = llara_cfg_for("movielens")
    cfg["train_udata"] = str(shared_data / "movielens-100k" / "raw" / "u.data")
    d = tmp_path / "results" / "llara" / "movielens"
    info = P.run_candidates("movielens", cfg, seed=0, n=20, out=d / "candidates.jsonl",
                            out_summary=d / "candidates.summary.json")
    assert info["n_questions"] == 95 and info["n_ambiguous_sets"] == read_json(d / "candidates.summary.json")["n_ambiguous_sets"]
    assert P.run_prompts(d / "candidates.jsonl", "movielens", d / "prompts.jsonl") == 95
    # the answer rule's work (lrworld/inference/stage.py), then the track's collector
    cache = ResponseCache(tmp_path / "cache" / "random.sqlite")
    ident = fill_cache(read_jsonl(d / "prompts.jsonl"), lambda: make_backend("random", {"backend": "random"}), cache)
    P.run_responses(d / "prompts.jsonl", "random", ident["identity"], tmp_path / "cache", d / "responses" / "random.jsonl")
    b = P.run_baseline("movielens", cfg, d / "candidates.jsonl", "popularity", d / "baseline_popularity" / "seed0.jsonl",
                       max_epochs=1, seed=0, holdout_seed=0, val_fraction=0.1, patience=3)
    assert b["n_train_examples"] > 50_000 and "excluded" in b["train_notes"][-1] and b["epochs_run"] == 0
    s_rand = P.run_score(d / "candidates.jsonl", d / "responses" / "random.jsonl", "random", d / "scores" / "random.json",
                         d / "scores" / "random.per_question.jsonl")
    s_pop = P.run_score(d / "candidates.jsonl", [d / "baseline_popularity" / "seed0.jsonl"], "baseline_popularity",
                        d / "scores" / "baseline_popularity.json")
    assert s_rand["kind"] == "LLM" and s_rand["parse"] == "llara_title_substring"
    assert s_rand["valid_ratio"] >= 1 - s_rand["n_ambiguous_sets"] / 95
    assert s_pop["kind"] == "traditional" and s_pop["valid_ratio"] == 1.0 and s_pop["n_seeds"] == 1
    assert s_pop["hit_ratio_at_1_all"] > s_rand["hit_ratio_at_1_all"] and s_pop["hit_ratio_at_1_all_sd"] is None
    assert len(read_jsonl(d / "scores" / "random.per_question.jsonl")) == 95
    df = P.run_table([d / "scores" / "random.json", d / "scores" / "baseline_popularity.json"],
                     tmp_path / "llara.csv", tmp_path / "llara.md", paper_datasets={"movielens": "movielens"})
    assert list(df["model"]) == ["random", "baseline_popularity"]
    assert {"movielens HitRatio@1", "movielens HitRatio@1 among valid", "movielens valid ratio",
            "movielens paper HitRatio@1"} <= set(df.columns)
    assert df["movielens paper HitRatio@1"].isna().all()  # the paper has no random or popularity row
    md = (tmp_path / "llara.md").read_text()
    assert "| random | LLM |" in md and "correct / all questions" in md and "| LLaRA(SASRec) | 0.9684 | 0.4421 |" in md
    # every artifact is valid JSON Lines with one record per question
    assert all(json.loads(line)["qid"] for line in (d / "prompts.jsonl").read_text().splitlines())


def test_dataset_from_parquet_tables(tmp_path):
    rng = range(30)
    rows = [{"user_id": f"u{u}", "item_id": f"i{(u * 7 + t) % 60}", "rating": 4.0, "timestamp": 1000 * u + t}
            for u in rng for t in range(12)]
    inter = pd.DataFrame(rows).sort_values(["user_id", "timestamp", "item_id"])
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(60)], "title": [f"Item number {k:02d}" for k in range(60)]})
    inter.to_parquet(tmp_path / "interactions.parquet", index=False)
    items.to_parquet(tmp_path / "items.parquet", index=False)
    cfg = {"interactions": str(tmp_path / "interactions.parquet"), "items": str(tmp_path / "items.parquet")}
    assert P.dataset_inputs("toy", cfg) == [cfg["interactions"], cfg["items"]]
    P.run_candidates("toy", cfg, seed=1, n=20, out=tmp_path / "c.jsonl")
    recs = read_jsonl(tmp_path / "c.jsonl")
    assert len(recs) == 30
    for r in recs:
        user = r["qid"].split(":")[-1]
        seen = set(inter.loc[inter.user_id == user, "item_id"])
        negatives = {iid for k, iid in enumerate(r["candidate_item_ids"]) if k != r["gold_index"]}
        assert not negatives & seen  # negatives: items the user never interacted with
    P.run_prompts(tmp_path / "c.jsonl", "generic", tmp_path / "p.jsonl")
    infos = [P.run_baseline("toy", cfg, tmp_path / "c.jsonl", "gru4rec", tmp_path / f"b{seed}.jsonl", max_epochs=2,
                            seed=seed, holdout_seed=1, val_fraction=0.1, patience=1) for seed in (0, 1)]
    assert [i["seed"] for i in infos] == [0, 1] and all(1 <= i["best_epoch"] <= i["epochs_run"] <= 2 for i in infos)
    assert infos[0]["valid_metric"] == "cross_entropy" and len(infos[0]["valid_curve"]) == infos[0]["epochs_run"]
    s = P.run_score(tmp_path / "c.jsonl", [tmp_path / "b0.jsonl", tmp_path / "b1.jsonl"], "baseline_gru4rec",
                    tmp_path / "s.json", tmp_path / "s.per_question.jsonl")
    assert s["n_questions"] == 30 and s["valid_ratio"] == 1.0 and s["n_seeds"] == 2
    per_seed = [x["hit_ratio_at_1_all"] for x in s["per_seed"]]
    assert s["hit_ratio_at_1_all"] == pytest.approx(sum(per_seed) / 2)
    assert s["hit_ratio_at_1_all_sd"] == pytest.approx(abs(per_seed[0] - per_seed[1]) / 2 ** 0.5)
    assert [r["seed"] for r in read_jsonl(tmp_path / "s.per_question.jsonl")] == [0] * 30 + [1] * 30
    with pytest.raises(ValueError, match="one training seed"):
        P.run_score(tmp_path / "c.jsonl", [tmp_path / "b0.jsonl", tmp_path / "b0.jsonl"], "baseline_gru4rec",
                    tmp_path / "s.json")
