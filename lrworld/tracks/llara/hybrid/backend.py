"""The answer job's backend for a LLaRA-trained row: an `hf` base model with the trained LoRA
adapter and projector; a hybrid request's placeholders get the projected item embeddings of the
rec model (``wrap_embeds``), then greedy decoding from ``inputs_embeds`` (LLaRA's
``MInterface.generate``). The text form has no placeholders to fill ([PH] is a learned token).

Its identity (the response cache's key space) holds the base weights' digest and the adapter,
projector and rec-model digests, so new trained files are new cache keys: a rerun never reads an
answer another training gave.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from lrworld.core.io import sha256_file
from lrworld.models.base import PromptItem, Response
from lrworld.models.registry import register_backend
from lrworld.tracks.llara.hybrid.entries import HYBRID_BACKEND

WEIGHT_KEYS = ("weights_sha256", "resolved_revision")  # as lrworld/inference/weights.py checks them


def adapter_file(adapter: str | Path) -> Path:
    return Path(adapter) / "adapter_model.safetensors"


# the plan writes this backend's config from a `llara.trained` entry (entries.answer_cfg)
@register_backend(HYBRID_BACKEND, configurable=False)
class HybridBackend:
    def __init__(self, name: str, cfg: dict):
        self.name = name
        self.cfg = cfg
        self.form = cfg["form"]
        self.max_new_tokens = int(cfg["max_new_tokens"])
        self.batch_size = int(cfg["batch_size"])
        self._loaded = None

    def identity(self) -> dict:
        from lrworld.models.backends.hf import planned_weights

        base = self.cfg["base"]
        rec = self.cfg.get("rec_model")
        ident = {"backend": HYBRID_BACKEND, "model": base.get("model") or f"package:{base.get('package')}",
                 "gguf_file": base.get("gguf_file"), "revision": base.get("revision"),
                 "dtype": base.get("dtype", "float32"), "form": self.form, "max_new_tokens": self.max_new_tokens,
                 "rec_model_sha256": sha256_file(rec) if rec else None}
        if "checkpoint" in self.cfg:  # a released LLaRA checkpoint (projector + LoRA in one file)
            ident.update({"checkpoint_sha256": sha256_file(self.cfg["checkpoint"]), "lora": self.cfg["lora"],
                          "lora_default": self.cfg.get("lora_default")})
        else:
            ident.update({"adapter_sha256": sha256_file(adapter_file(self.cfg["adapter"])),
                          "projector_sha256": sha256_file(self.cfg["projector"])})
        weights = planned_weights(self.cfg["base_name"], base)
        ident.update({k: weights[k] for k in WEIGHT_KEYS if k in weights})
        return ident

    def _load(self):
        if self._loaded is None:
            import torch

            from lrworld.recsys.checkpoint import load_rec_model
            from lrworld.tracks.llara.hybrid import pickles
            from lrworld.tracks.llara.hybrid.run import load_base, load_trained
            from lrworld.tracks.llara.hybrid.tokens import item_table

            base_cfg = self.cfg["base"]
            tok, base, _ = load_base(self.cfg["base_name"], base_cfg)
            device = base_cfg.get("device") or ("cuda" if torch.cuda.is_available() else "cpu")
            if "checkpoint" in self.cfg:
                from lrworld.tracks.llara.hybrid.released import load_llara_checkpoint

                model, projector, token_ids = load_llara_checkpoint(
                    self.cfg["checkpoint"], base.to(device), tok, self.cfg["lora_default"], self.cfg["lora"],
                    self.cfg.get("n_candidates"))
            else:
                model, projector, token_ids = load_trained(base.to(device), tok, self.cfg["adapter"],
                                                           self.cfg["projector"])
            projector.to(device)
            rec = self.cfg.get("rec_model")
            # LLaRA's own rec_model/*.pt (whole pickled objects) or the model llara_baseline saved
            read = pickles.load_rec_model if self.cfg.get("rec_format") == "llara" else load_rec_model
            items = item_table(read(rec)).to(device) if rec else None
            self._loaded = (tok, model, projector, token_ids, items, device)
        return self._loaded

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        from lrworld.tracks.llara.hybrid.generate import greedy

        tok, model, projector, token_ids, table, device = self._load()
        out: list[Response] = []
        for b0 in range(0, len(items), self.batch_size):
            batch = items[b0:b0 + self.batch_size]
            t0 = time.perf_counter()
            answers = greedy(model, projector, tok, [it.prompt for it in batch], [it.history_items for it in batch],
                             [it.candidate_items for it in batch], table, token_ids, self.max_new_tokens, device)
            per_item = (time.perf_counter() - t0) / len(batch)
            for it, (text, n_in, n_out, finish) in zip(batch, answers):
                out.append(Response(qid=it.qid, raw_text=text, tokens_in=n_in, tokens_out=n_out, latency_s=per_item,
                                    extra={"finish_reason": finish}))
        return out
