"""A model's identity follows its weights: a local folder is keyed by a digest of its
weight and tokenizer files (swapped in place, even with the old size and mtime, the answers are
asked again); a hub id by the commit it resolves to, from the local cache, offline-safe."""

import json
import os
import sys
import shutil

import pytest

from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache
from lrworld.models import make_backend
from lrworld.models.backends.hf import ModelFilesError, resolve_hub_revision

WORDS = ["<unk>", "<s>", "</s>", "A", "B", "C", "D", "Which", "one", "?", "Answer:", "x", "y", "z", "w"]


def tiny_llama(folder, seed):
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tk = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    torch.manual_seed(seed)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(WORDS), hidden_size=16, intermediate_size=32,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
                                         max_position_embeddings=64, bos_token_id=1, eos_token_id=2,
                                         initializer_range=1.0))
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def prompts(n=6):
    return [{"qid": f"q{i}", "prompt": f"Which one ? {' '.join('xyzw'[j % 4] for j in range(i + 1))} Answer:", "labels": list("ABCD"),
             "candidates": list("wxyz")} for i in range(n)]


def test_swapping_local_weights_in_place_asks_again(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = tiny_llama(tmp_path / "model", seed=0)
    other = tiny_llama(tmp_path / "other", seed=1)
    cfg = {"backend": "hf", "model": str(model), "mode": "choice", "device": "cpu", "batch_size": 4}
    cache = ResponseCache(tmp_path / "m.sqlite")
    first = fill_cache(prompts(), lambda: make_backend("tiny", cfg), cache)
    assert first["asked"] == 6 and len(first["identity"]["weights_sha256"]) == 64
    assert "model.safetensors" in first["identity"]["files_sha256"] and "tokenizer.json" in first["identity"]["files_sha256"]
    assert fill_cache(prompts(), lambda: make_backend("tiny", cfg), cache)["asked"] == 0
    # cp -p: new bytes, the same size and the old mtime
    weights = model / "model.safetensors"
    st = weights.stat()
    assert (other / "model.safetensors").stat().st_size == st.st_size
    shutil.copyfile(other / "model.safetensors", weights)
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    swapped = fill_cache(prompts(), lambda: make_backend("tiny", cfg), cache)
    assert swapped["asked"] == 6
    assert swapped["identity"]["files_sha256"]["model.safetensors"] != first["identity"]["files_sha256"]["model.safetensors"]
    assert swapped["identity"]["files_sha256"]["tokenizer.json"] == first["identity"]["files_sha256"]["tokenizer.json"]
    # the fast path's record is the working folder's, keyed by relative paths; nothing beside the weights
    table = json.loads((tmp_path / ".snakemake/lrworld/digests.json").read_text())
    assert "model/model.safetensors" in table and not any(k.startswith("/") for k in table)
    assert sorted(p.name for p in model.iterdir() if p.name.startswith(".")) == []
    # provenance shows the digests the answers were keyed by
    from lrworld.provenance.record import model_block

    shown = model_block({"identity": swapped["identity"]}, [])["identity"]
    assert shown["weights_sha256"] == swapped["identity"]["weights_sha256"] and shown["files_sha256"]["model.safetensors"]


def test_a_hub_id_is_keyed_by_its_cached_commit(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    repo = tmp_path / "hub" / "models--org--tiny"
    commit = "0123456789abcdef0123456789abcdef01234567"
    tiny_llama(repo / "snapshots" / commit, seed=0)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert resolve_hub_revision("tiny", "org/tiny", None) == (commit, True)
    backend = make_backend("tiny", {"backend": "hf", "model": "org/tiny", "mode": "choice", "device": "cpu"})
    ident = backend.identity()
    assert ident["resolved_revision"] == commit and ident["model"] == "org/tiny"
    # a new commit on main is another identity
    newer = "fedcba9876543210fedcba9876543210fedcba98"
    shutil.copytree(repo / "snapshots" / commit, repo / "snapshots" / newer)
    (repo / "refs" / "main").write_text(newer)
    assert make_backend("tiny", {"backend": "hf", "model": "org/tiny", "mode": "choice"}).identity()["resolved_revision"] == newer


def test_a_hub_id_offline_and_not_cached_fails_at_once_in_one_line(tmp_path, monkeypatch):
    import time

    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    backend = make_backend("llama", {"backend": "hf", "model": "meta-llama/Meta-Llama-3-8B-Instruct"})
    t0 = time.monotonic()
    with pytest.raises(ModelFilesError, match=r"^models\.llama\.model: hub id 'meta-llama/Meta-Llama-3-8B-Instruct' "
                                              r"\(revision main\) is not in the local Hugging Face cache .*hf download"):
        backend.identity()
    assert time.monotonic() - t0 < 30  # no network retries (each would wait out a timeout); generous for a loaded machine


def test_a_missing_local_folder_is_rejected_at_start():
    import copy
    from pathlib import Path

    import yaml

    from lrworld.config import assembly as lrw_config
    from lrworld.core.schema import ConfigError

    cfg = yaml.safe_load((Path(__file__).resolve().parents[2] / "config.yaml").read_text())
    cfg = copy.deepcopy(cfg)
    cfg["models"]["local"] = {"backend": "hf", "model": "/data/models/no-such-model"}
    with pytest.raises(ConfigError, match=r"models\.local\.model: folder /data/models/no-such-model not found"):
        lrw_config.validate(cfg)


def test_weights_swapped_in_place_re_ask_and_re_score_through_the_graph(tmp_path, shared_data):
    """`cp -p` of other weights into the model folder (same path, same size, old mtime)
    is caught by `lrworld verify`, and the rerun asks every answer again and re-scores, so the
    responses, the score record and the identity file name the same (new) weights."""
    import json
    import subprocess

    from lrworld import cli
    from tests.support.fixtures_graph import smk_cmd, write_config

    model = tiny_llama(tmp_path / "model", seed=0)
    other = tiny_llama(tmp_path / "other", seed=1)
    work = tmp_path / "wf"
    work.mkdir()
    write_config(work, shared_data, {"tiny": {"backend": "hf", "model": str(model), "mode": "choice", "device": "cpu"}},
                 per_measure=6)
    targets = ("results/tables/ml.csv", "results/provenance/ml/table.json")
    run = subprocess.run(smk_cmd(work, *targets), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    planned = json.loads((work / "results/models/tiny.identity.json").read_text())
    first = json.loads((work / "results/answers/lrworld/ml/tiny.json").read_text())
    assert first["asked"] == 6 and first["identity"]["weights_sha256"] == planned["weights_sha256"]
    assert cli.main(["verify", "-d", str(work)]) == 0

    weights = model / "model.safetensors"
    st = weights.stat()
    shutil.copyfile(other / "model.safetensors", weights)
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert cli.main(["verify", "-d", str(work)]) == 1  # the record's weights differ from the folder's
    res = subprocess.run([sys.executable, "-m", "lrworld", "verify", "-d", str(work)], capture_output=True, text=True)
    assert "model.safetensors (model_file" in res.stdout

    run = subprocess.run(smk_cmd(work, *targets), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    again = json.loads((work / "results/answers/lrworld/ml/tiny.json").read_text())
    planned2 = json.loads((work / "results/models/tiny.identity.json").read_text())
    assert again["asked"] == 6 and again["cached"] == 0
    assert again["identity"]["weights_sha256"] == planned2["weights_sha256"] != first["identity"]["weights_sha256"]
    assert planned2["files_sha256"]["model.safetensors"] != planned["files_sha256"]["model.safetensors"]
    rec = json.loads((work / "results/provenance/ml/tiny/attr_genre/zero_shot.json").read_text())
    assert rec["model_identity"]["identity"]["weights_sha256"] == planned2["weights_sha256"]
    keys = {r["cache_key"] for r in map(json.loads, (work / "results/responses/ml/tiny/attr_genre/zero_shot.jsonl")
                                       .read_text().splitlines())}
    from lrworld.inference.cache import request_key  # the responses are the new identity's answers
    prompts_ = [json.loads(line) for line in (work / "results/prompts/ml/attr_genre/zero_shot.jsonl").read_text().splitlines()]
    assert keys == {request_key(again["identity"], p) for p in prompts_}
    assert cli.main(["verify", "-d", str(work)]) == 0
    dry = subprocess.run(smk_cmd(work, *targets, "-n"), capture_output=True, text=True)
    assert "Nothing to be done" in dry.stdout + dry.stderr
