"""`llara_train` on a LLaRA dataset: training examples with drawn candidate sets, the base model,
the saved adapter + projector (answered by lrworld/tracks/llara/hybrid/backend.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import torch

from lrworld.config.assembly import entry_defaults
from lrworld.core.io import sha256_file, sha256_text, dumps_canonical, write_json
from lrworld.core.seeding import rng_for
from lrworld.core.tensors import load_tensors, save_tensors
from lrworld.tracks.llara.hybrid.projector import MlpProjector
from lrworld.tracks.llara.hybrid.tokens import SPECIAL_TOKENS, add_placeholder_tokens, item_table

# The paper's settings (LLaRA's train_*.sh / main.py); the CPU default overrides only the size of the run.
PAPER_HPARAMS = {"lr": 7e-4, "lr_warmup_start_lr": 7e-6, "lr_decay_min_lr": 7e-6, "weight_decay": 1e-5,
                 "batch_size": 8, "accumulate_grad_batches": 16, "lora_r": 8, "lora_alpha": 32, "lora_dropout": 0.1,
                 "max_epochs": 5, "hybrid_share": 1.0}


def training_examples(ds, n_candidates: int, seed: int, min_len_seq: int = 1) -> list[dict]:
    """LLaRA's training rows: every training example with at least ``min_len_seq`` history items
    (LLaRA's loaders keep ``len_seq >= 3`` for training too), with ``n_candidates`` candidates (the
    target + negatives the user has not seen, each with a title), drawn from ``rng_for(seed, dataset, ...)``."""
    return _with_candidates(ds, list(enumerate(ds.train)), n_candidates, seed, "llara_train_candidates", min_len_seq)


def validation_examples(ds, cfg: dict, n_candidates: int, seed: int, limit: int) -> list[dict]:
    """The first ``limit`` rows of the validation split, as training rows (candidates drawn once):
    a set built from interactions has its own; a released set reads its ``Val_data.jsonl`` (LLaRA's
    val split), which must not be training data too (Steam's ``train_expand``)."""
    from lrworld.tracks.llara.data import PAD_IDS, load_llara_split

    val = ds.val
    if not val:
        cfg = entry_defaults(("llara", "datasets"), cfg)
        if "Val_data.jsonl" in [*cfg["train_files"], *cfg["train_expand"]]:
            raise ValueError(f"llara.datasets.{ds.name}: Val_data.jsonl is training data here; validation would "
                             f"score trained-on rows (set llara.train.validate_every: 0)")
        kind = cfg.get("kind", ds.name)
        if kind not in PAD_IDS or not cfg.get("path") or not (Path(cfg["path"]) / "Val_data.jsonl").exists():
            raise ValueError(f"llara.datasets.{ds.name}: no validation split (llara.train.validate_every needs one)")
        val, _ = load_llara_split(Path(cfg["path"]) / "Val_data.jsonl", kind, "val", ds.item_names, cfg["min_len_seq"])
    return _with_candidates(ds, list(enumerate(val))[:limit], n_candidates, seed, "llara_val_candidates", 1)


def _with_candidates(ds, indexed, n_candidates: int, seed: int, stream: str, min_len_seq: int) -> list[dict]:
    pool = sorted(i for i, t in ds.item_names.items() if t)
    out = []
    for k, ex in indexed:
        if len(ex.history) < min_len_seq:
            continue
        seen = set(ex.seen) | set(ex.history) | {ex.next}
        rng = rng_for(seed, ds.name, stream, str(k))
        negs: list[int] = []
        while len(negs) < n_candidates - 1:
            i = pool[int(rng.integers(len(pool)))]
            if i not in seen and i not in negs:
                negs.append(i)
        cands = negs[:]
        cands.insert(int(rng.integers(n_candidates)), ex.next)
        out.append({"history": list(ex.history), "history_titles": [ds.item_names[i] for i in ex.history],
                    "candidates": cands, "candidate_titles": [ds.item_names[i] for i in cands],
                    "next_title": ds.item_names[ex.next]})
    return out


def load_base(name: str, cfg: dict):
    """(tokenizer, model, weights digest) of an `hf` model entry (local folder, GGUF or package)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from lrworld.models.backends.hf import file_digests, model_files, resolve_location

    from lrworld.models import gguf_cache

    loc, gguf = resolve_location(name, cfg)
    folder = Path(loc)
    digests = file_digests(folder, [folder / gguf] if gguf else model_files(folder))
    src, kw = loc, ({"gguf_file": gguf} if gguf else {})
    if gguf:  # the dequantized copy, made once (lrworld/models/gguf_cache.py)
        converted = gguf_cache.ensure(loc, gguf, digests[gguf])
        if converted:
            src, kw = str(converted), {}
    tok = AutoTokenizer.from_pretrained(src, **kw)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(src, dtype=getattr(torch, cfg.get("dtype", "float32")), **kw)
    return tok, model, sha256_text(dumps_canonical(digests))


def _placeholder_ids(tok) -> list[int]:
    return [tok.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS]


def _untied_output(model):
    out, inp = model.get_output_embeddings(), model.get_input_embeddings()
    return None if out is None or out.weight.data_ptr() == inp.weight.data_ptr() else out


def save_trained(model, projector, tok, out_adapter: str | os.PathLike, out_projector: str | os.PathLike) -> dict:
    """The adapter folder and projector.pt. The placeholder tokens' embedding rows (initialised when
    they were added, never trained) go with the projector: peft saves the resized table only when it
    can compare it with the base's config, which a GGUF base (SmolLM2) does not give it, and
    re-adding the tokens draws new rows, so a text-form [PH] would read other vectors than in training."""
    model.save_pretrained(out_adapter)
    ids = _placeholder_ids(tok)
    rows = {"input": model.get_input_embeddings().weight[ids].detach().cpu().clone()}
    if (out := _untied_output(model)) is not None:
        rows["output"] = out.weight[ids].detach().cpu().clone()
    save_tensors({"projector": projector.state_dict(), "rec_size": projector.rec_size,
                  "llm_size": projector.llm_size, "placeholder_rows": rows}, out_projector)
    return {"adapter_sha256": sha256_file(Path(out_adapter) / "adapter_model.safetensors"),
            "projector_sha256": sha256_file(out_projector)}


def load_trained(base_model, tok, adapter: str | os.PathLike, projector_path: str | os.PathLike):
    """The base model with a saved adapter and projector (placeholder tokens added first, as in
    training, with the embedding rows they had in training when projector.pt holds them)."""
    from peft import PeftModel

    st = load_tensors(projector_path, "projector")
    token_ids = add_placeholder_tokens(tok, base_model)
    if "placeholder_rows" in st:
        ids = _placeholder_ids(tok)
        with torch.no_grad():
            for key, layer in (("input", base_model.get_input_embeddings()), ("output", _untied_output(base_model))):
                if key in st["placeholder_rows"] and layer is not None:
                    w = layer.weight
                    w[ids] = st["placeholder_rows"][key].to(dtype=w.dtype, device=w.device)
    model = PeftModel.from_pretrained(base_model, str(adapter))
    projector = MlpProjector(st["rec_size"], st["llm_size"])
    projector.load_state_dict(st["projector"])
    model.eval()
    projector.eval()
    return model, projector, token_ids


# The projector's input size of a text-only LoRA (no rec model; its projector is never used).
TEXT_ONLY_REC_SIZE = 64


def run_train(name: str, cfg: dict, rec_checkpoint: str | os.PathLike | None, base_name: str, base_cfg: dict,
              hp: dict, seed: int, candidate_seed: int, n_candidates: int, work_dir, out_adapter, out_projector,
              out_record, log: Callable[[str], None] = print) -> dict:
    """The `llara_train` job: examples, base model, rec-model table, curriculum training, outputs.
    ``rec_checkpoint`` None: the text-only LoRA (``hp["hybrid_share"]`` must be 0)."""
    from lrworld.recsys.checkpoint import load_rec_model
    from lrworld.tracks.llara.hybrid.train import train
    from lrworld.tracks.llara.pipeline import dataset_inputs, load_dataset
    from lrworld.tracks.llara.prompts import load_template

    ds = load_dataset(name, cfg)
    examples = training_examples(ds, n_candidates, candidate_seed,
                                 entry_defaults(("llara", "datasets"), cfg)["min_len_seq"])
    if not examples:
        raise ValueError(f"llara.datasets.{name}: no training examples for llara_train")
    if rec_checkpoint is None and hp["hybrid_share"] > 0:
        raise ValueError(f"llara_train {name}: hybrid_share {hp['hybrid_share']} needs a rec model")
    tok, base, weights = load_base(base_name, base_cfg)
    base.to(base_cfg.get("device") or ("cuda" if torch.cuda.is_available() else "cpu"))
    items = (item_table(load_rec_model(rec_checkpoint)) if rec_checkpoint is not None
             else torch.zeros(1, TEXT_ONLY_REC_SIZE))
    template = load_template(cfg.get("template", name))
    val = (validation_examples(ds, cfg, n_candidates, candidate_seed, int(hp["validate_n"]))
           if hp.get("validate_every") else [])
    model, projector, record = train(examples, template, tok, base, items, hp, seed, name, work_dir, log=log,
                                     val_examples=val)
    digests = save_trained(model, projector, tok, out_adapter, out_projector)
    record.update({"dataset": name, "base_model": base_name, "base_weights_sha256": weights,
                   "rec_model_sha256": sha256_file(rec_checkpoint) if rec_checkpoint is not None else None, "template_sha256": sha256_text(template),
                   "data_sha256": {Path(p).name: sha256_file(p) for p in dataset_inputs(name, cfg)}, **digests})
    write_json(out_record, record)
    return record
