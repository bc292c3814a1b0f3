"""llara_train's job end to end on a toy set and a tiny Llama: the rec model the baseline saved, the
record's digests, and hybrid answers from the saved adapter + projector through the answer stage's
backend and cache."""

import json

import torch

from lrworld.core.io import read_jsonl, sha256_file
from lrworld.tracks.llara import pipeline as P
from lrworld.inference.cache import ResponseCache, request_key
from lrworld.inference.stage import fill_cache
from lrworld.tracks.llara.hybrid.backend import HybridBackend
from lrworld.tracks.llara.hybrid.requests import build_requests
from lrworld.tracks.llara.hybrid.run import run_train
from tests.support.fixtures_sequences import write_toy_sequences
from tests.support.tiny_llama import build_tiny_llama

HP = {"lr": 7e-4, "lr_warmup_start_lr": 7e-6, "lr_decay_min_lr": 7e-6, "weight_decay": 1e-5, "batch_size": 2,
      "accumulate_grad_batches": 1, "lora_r": 4, "lora_alpha": 32, "lora_dropout": 0.1, "max_steps": 3,
      "checkpoint_every": 2, "hybrid_share": 1.0}


def test_train_then_answer(tmp_path):
    write_toy_sequences(tmp_path)
    cfg = {"interactions": str(tmp_path / "interactions.parquet"), "items": str(tmp_path / "items.parquet"),
           "template": "generic"}
    P.run_candidates("toy", cfg, seed=1, n=20, out=tmp_path / "c.jsonl")
    P.run_baseline("toy", cfg, tmp_path / "c.jsonl", "sasrec", tmp_path / "b0.jsonl", max_epochs=1, seed=0,
                   holdout_seed=1, val_fraction=0.1, patience=1, checkpoint=tmp_path / "sasrec.pt")
    base = {"model": str(build_tiny_llama(tmp_path / "m"))}
    rec = run_train("toy", cfg, tmp_path / "sasrec.pt", "tiny", base, HP, seed=0, candidate_seed=1, n_candidates=20,
                    work_dir=tmp_path / "work", out_adapter=tmp_path / "adapter", out_projector=tmp_path / "proj.pt",
                    out_record=tmp_path / "record.json", log=lambda m: None)
    assert json.loads((tmp_path / "record.json").read_text()) == rec
    assert rec["steps"] == 3 and len(rec["loss_curve"]) == 3
    assert rec["rec_model_sha256"] == sha256_file(tmp_path / "sasrec.pt")
    assert rec["projector_sha256"] == sha256_file(tmp_path / "proj.pt")
    assert set(rec["data_sha256"]) == {"interactions.parquet", "items.parquet"}
    assert len(rec["base_weights_sha256"]) == 64
    reqs = build_requests(read_jsonl(tmp_path / "c.jsonl")[:3], "generic", "hybrid")
    assert reqs[0]["prompt"].count("[HistoryEmb]") == len(reqs[0]["history_items"]) > 0
    assert reqs[0]["prompt"].count("[CansEmb]") == len(reqs[0]["candidate_items"]) == 20
    cfg_b = {"backend": "llara_hybrid", "base_name": "tiny", "base": base, "adapter": str(tmp_path / "adapter"),
             "projector": str(tmp_path / "proj.pt"), "rec_model": str(tmp_path / "sasrec.pt"), "form": "hybrid",
             "max_new_tokens": 3, "batch_size": 2}
    cache = ResponseCache(tmp_path / "cache.sqlite")
    info = fill_cache(reqs, lambda: HybridBackend("tiny-llara", cfg_b), cache)
    ident = info["identity"]
    assert info["asked"] == 3 and len(cache) == 3
    # the cache key space holds the trained files' digests
    assert ident["projector_sha256"] == rec["projector_sha256"] and ident["adapter_sha256"] == rec["adapter_sha256"]
    assert ident["rec_model_sha256"] == rec["rec_model_sha256"] and ident["weights_sha256"] == rec["base_weights_sha256"]
    # the items at the placeholders are keyed: the same prompt with another item is another request
    moved = {**reqs[0], "history_items": [reqs[0]["history_items"][0] + 1, *reqs[0]["history_items"][1:]]}
    assert request_key(ident, moved) != request_key(ident, reqs[0])
    # a changed projector is a new key space: asked again, nothing read from the old answers
    st = torch.load(tmp_path / "proj.pt", weights_only=True)
    st["projector"]["mlp_proj.0.bias"] += 1.0
    torch.save(st, tmp_path / "proj.pt")
    again = fill_cache(reqs, lambda: HybridBackend("tiny-llara", cfg_b), cache)
    assert again["identity"]["projector_sha256"] != ident["projector_sha256"] and again["asked"] == 3
    assert len(cache) == 6


def test_placeholder_rows_come_back_when_the_adapter_has_no_embedding_table(tmp_path):
    """A GGUF base (SmolLM2) gives peft no config to compare the resized table with, so the adapter
    holds LoRA tensors only; the rows the placeholder tokens got in training come back from
    projector.pt, not a new draw (the text form's [PH] reads them)."""
    from lrworld.tracks.llara.hybrid.projector import MlpProjector
    from lrworld.tracks.llara.hybrid.run import load_base, load_trained, save_trained
    from lrworld.tracks.llara.hybrid.tokens import add_placeholder_tokens
    from lrworld.tracks.llara.hybrid.train import with_lora

    base_cfg = {"model": str(build_tiny_llama(tmp_path / "m"))}
    tok, base, _ = load_base("tiny", base_cfg)
    torch.manual_seed(1)
    ids = add_placeholder_tokens(tok, base)
    model = with_lora(base, HP)
    trained_ph = model.get_input_embeddings().weight[ids["[PH]"]].detach().clone()
    plain_save = model.save_pretrained
    model.save_pretrained = lambda d: plain_save(d, save_embedding_layers=False)
    save_trained(model, MlpProjector(8, 16), tok, tmp_path / "adapter", tmp_path / "proj.pt")
    assert "embed" not in " ".join(__import__("safetensors.torch").torch.load_file(
        tmp_path / "adapter" / "adapter_model.safetensors"))
    tok2, base2, _ = load_base("tiny", base_cfg)
    torch.manual_seed(2)  # another draw for the re-added tokens' rows
    model2, _, ids2 = load_trained(base2, tok2, tmp_path / "adapter", tmp_path / "proj.pt")
    assert ids2 == ids
    assert torch.equal(model2.get_input_embeddings().weight[ids["[PH]"]], trained_ph)
