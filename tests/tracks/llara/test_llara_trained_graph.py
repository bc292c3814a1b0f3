"""LLaRA-trained rows through the real graph: on a toy set and a tiny Llama, the
table gets the base model's zero-shot row, the text-only LoRA, LLaRA(SASRec) and SASRec, every LLM
row answered by the one `answer` rule; then a changed projector re-plans that row's answer job
(and what reads it), not the training or the baselines."""

import csv

import pytest
import torch
import yaml

from lrworld.core.io import read_json, read_jsonl
from tests.graph import job_counts, snakemake
from tests.support.fixtures_sequences import write_toy_sequences
from tests.support.tiny_llama import build_tiny_llama


def _config(tmp_path, shared_data, trained):
    return {
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                            "source": {"path": str(shared_data / "movielens-100k/raw")}}},
        "models": {"tiny": {"backend": "hf", "model": str(tmp_path / "tiny"), "mode": "generate",
                            "max_new_tokens": 3, "batch_size": 8}},
        "llara": {
            "seed": 0, "n_candidates": 20, "max_epochs": 1, "baseline_seeds": 1, "baselines": ["sasrec"],
            "models": ["tiny"],
            "train": {"max_steps": 2, "batch_size": 2, "checkpoint_every": 1, "lora_r": 4},
            "trained": trained,
            "datasets": {"toy": {"interactions": str(tmp_path / "interactions.parquet"),
                                 "items": str(tmp_path / "items.parquet"), "template": "generic"}},
        },
    }


TRAINED = [{"name": "tiny-text", "base": "tiny", "hybrid_share": 0, "max_new_tokens": 3},
           {"name": "tiny-llara-sasrec", "base": "tiny", "rec": "sasrec", "max_new_tokens": 3}]


@pytest.mark.slow
def test_trained_rows_through_the_graph(tmp_path, shared_data):
    write_toy_sequences(tmp_path)
    build_tiny_llama(tmp_path / "tiny")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(_config(tmp_path, shared_data, TRAINED)))
    plan = job_counts(snakemake(tmp_path, "-n", "results/tables/llara.md").stdout)
    # three answered rows (zero-shot, text LoRA, LLaRA) through the one answer rule; two trainings
    assert plan == {"llara_candidates": 1, "llara_prompts": 1, "llara_hybrid_requests": 2, "model_identity": 3,
                    "answer": 3, "llara_responses": 3, "llara_baseline": 1, "llara_train": 2, "llara_score": 4,
                    "llara_table": 1}
    snakemake(tmp_path, "results/tables/llara.md")
    with open(tmp_path / "results/tables/llara.csv") as f:
        table = {r["model"]: r for r in csv.DictReader(f)}
    assert {m: r["kind"] for m, r in table.items()} == {
        "tiny": "LLM", "tiny-llara-sasrec": "LLaRA(SASRec)", "tiny-text": "LoRA, text (TALLRec-style)",
        "baseline_sasrec": "traditional"}
    assert all(r["toy n"] == "30" for r in table.values())
    for m in table:
        s = read_json(tmp_path / f"results/llara/toy/scores/{m}.json")
        assert s["n_questions"] == 30 and 0 <= s["hit_ratio_at_1_all"] <= s["valid_ratio"] <= 1
    assert float(table["baseline_sasrec"]["toy valid ratio"]) == 1.0
    # the LLaRA row was asked its hybrid requests (items keyed) with the trained files' digests
    answered = read_json(tmp_path / "results/answers/llara/toy/tiny-llara-sasrec.json")
    record = read_json(tmp_path / "results/llara/toy/train/tiny-llara-sasrec/record.json")
    ident = answered["identity"]
    assert ident["backend"] == "llara_hybrid" and ident["form"] == "hybrid" and answered["asked"] == 30
    assert ident["projector_sha256"] == record["projector_sha256"]
    assert ident["rec_model_sha256"] == record["rec_model_sha256"] and ident["weights_sha256"] == record["base_weights_sha256"]
    assert list(answered["prompt_files"]) == ["results/llara/toy/hybrid_requests/hybrid.jsonl"]
    req = read_jsonl(tmp_path / "results/llara/toy/hybrid_requests/hybrid.jsonl")[0]
    assert req["prompt"].count("[CansEmb]") == len(req["candidate_items"]) == 20
    text = read_json(tmp_path / "results/answers/llara/toy/tiny-text.json")["identity"]
    assert text["form"] == "text" and text["rec_model_sha256"] is None
    assert record["hybrid_steps"] >= 0 and read_json(
        tmp_path / "results/llara/toy/train/tiny-text/record.json")["hybrid_steps"] == 0

    # a changed projector: that row's answer (asked again under the new identity) and what reads it
    proj = tmp_path / "results/llara/toy/train/tiny-llara-sasrec/projector.pt"
    st = torch.load(proj, weights_only=True)
    st["projector"]["mlp_proj.0.bias"] += 1.0
    torch.save(st, proj)
    replan = snakemake(tmp_path, "-n", "results/tables/llara.md").stdout
    assert job_counts(replan) == {"answer": 1, "llara_responses": 1, "llara_score": 1, "llara_table": 1}
    assert "results/answers/llara/toy/tiny-llara-sasrec.json" in replan
