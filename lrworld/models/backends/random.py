"""The paper's RANDOM row: a uniform pick among the candidate labels (or, for a list request, k
distinct ids drawn uniformly from its id range)."""

from __future__ import annotations

import hashlib
import random
from typing import Sequence

from lrworld.models.base import PromptItem, Response
from lrworld.models.registry import register_backend


@register_backend("random", schema={"seed": {"type": "integer", "minimum": 0, "default": 0},
                                    # no model: the floors of lrworld/workflow/resources.py size its job
                                    "throughput_tokens_s": {"type": "number", "exclusiveMinimum": 0,
                                                            "default": 100000},
                                    "startup_s": {"type": "number", "minimum": 0, "default": 0}})
class RandomBackend:
    def __init__(self, name: str, cfg: dict):
        self.name = name
        self.seed = int(cfg.get("seed", 0))

    def identity(self) -> dict:
        return {"backend": "random", "seed": self.seed}

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        out = []
        for item in items:
            # Seeded per question, not per run: the pick does not depend on batch order or on
            # which other questions are answered in the same job.
            digest = hashlib.sha256(f"{self.seed}:{item.qid}".encode()).digest()
            rng = random.Random(int.from_bytes(digest[:8], "big"))
            if not item.labels and item.list_k:
                lo, hi = item.id_range
                ids = rng.sample(range(lo, hi + 1), min(item.list_k, hi - lo + 1))
                out.append(Response(qid=item.qid, raw_text=", ".join(map(str, ids)), tokens_in=0, tokens_out=0,
                                    latency_s=0.0))
                continue
            idx = rng.randrange(len(item.labels))
            out.append(Response(qid=item.qid, raw_text=item.labels[idx], tokens_in=0, tokens_out=0,
                                latency_s=0.0, choice_index=idx))
        return out
