"""The paper's RANDOM row: a uniform pick among the candidate labels (or, for a list request, k
distinct ids drawn uniformly from its id range)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from lrworld.models.base import PromptItem, Response
from lrworld.models.registry import Capabilities, register_backend
from lrworld.core.seeding import rng_for


@register_backend("random", schema={"seed": {"type": "integer", "minimum": 0, "default": 0},
                                    # no model: the floors of lrworld/workflow/resources.py size its job
                                    "throughput_tokens_s": {"type": "number", "exclusiveMinimum": 0,
                                                            "default": 100000},
                                    "startup_s": {"type": "number", "minimum": 0, "default": 0}},
                  can=Capabilities(reads_prompt=False))
class RandomBackend:
    """A uniformly random option per question, seeded by the model's `seed` and the question: the chance row."""

    def __init__(self, name: str, cfg: dict):
        self.name = name
        self.seed = int(cfg["seed"])

    def identity(self) -> dict:
        return {"backend": "random", "seed": self.seed}

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        out = []
        for item in items:
            # Seeded per question, not per run: the pick does not depend on batch order or on
            # which other questions are answered in the same job (the qid names dataset and measure).
            rng = rng_for(self.seed, "random_backend", item.qid)
            if not item.labels and item.list_k:
                lo, hi = item.id_range
                ids = rng.choice(np.arange(lo, hi + 1), size=min(item.list_k, hi - lo + 1), replace=False)
                out.append(Response(qid=item.qid, raw_text=", ".join(map(str, ids)), tokens_in=0, tokens_out=0,
                                    latency_s=0.0))
                continue
            idx = int(rng.integers(len(item.labels)))
            out.append(Response(qid=item.qid, raw_text=item.labels[idx], tokens_in=0, tokens_out=0,
                                latency_s=0.0, choice_index=idx))
        return out
