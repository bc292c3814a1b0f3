"""The paper's RANDOM row: a uniform pick among the candidate labels."""

from __future__ import annotations

import hashlib
import random
from typing import Sequence

from lrworld.models.base import PromptItem, Response


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
            idx = random.Random(int.from_bytes(digest[:8], "big")).randrange(len(item.labels))
            out.append(Response(qid=item.qid, raw_text=item.labels[idx], tokens_in=0, tokens_out=0,
                                latency_s=0.0, choice_index=idx))
        return out
