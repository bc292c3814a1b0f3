"""The paper's RANDOM row: a uniform pick among the candidate labels."""

from __future__ import annotations

from typing import Sequence

from lrworld.models.base import PromptItem, Response
from lrworld.questions.seeding import rng_for


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
            # which other questions are answered in the same job (the qid names dataset and measure).
            idx = int(rng_for(self.seed, "random_backend", item.qid).integers(len(item.labels)))
            out.append(Response(qid=item.qid, raw_text=item.labels[idx], tokens_in=0, tokens_out=0,
                                latency_s=0.0, choice_index=idx))
        return out
