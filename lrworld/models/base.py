"""The contract between the pipeline and a model backend.

A backend receives prompt items and returns one `Response` per item, in order. It never parses
the answer: parsing belongs to `lrworld.scoring.parse`, so every backend is scored the same way.
Backends that can score the candidate labels directly (choice scoring) also fill `choice_index`.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, Sequence


@dataclass(frozen=True)
class PromptItem:
    qid: str
    prompt: str
    labels: tuple[str, ...]  # option labels shown to the model, e.g. ("A", "B", "C", "D")
    candidates: tuple[str, ...] = ()  # candidate texts, same order as labels
    image_paths: tuple[str, ...] = ()


@dataclass
class Response:
    qid: str
    raw_text: str
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None
    # Set by choice-scoring backends: the index of the label with the highest log-probability.
    choice_index: int | None = None
    label_logprobs: list[float] | None = None
    # Returned by APIs: the model name the server says answered, and its system_fingerprint.
    served_model: str | None = None
    system_fingerprint: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


class Backend(Protocol):
    def identity(self) -> dict:
        """Everything that determines the answers (model id + revision/weights hash, decoding
        parameters, chat-template hash), used as the response-cache key. Never a secret."""

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        """Answer all items; may batch internally. Raise on transport errors, never return an
        error as an answer."""


_BACKENDS = {
    "random": "lrworld.models.random_backend:RandomBackend",
    "hf": "lrworld.models.hf_backend:HFBackend",
    "openai": "lrworld.models.openai_backend:OpenAIBackend",
}


def make_backend(name: str, cfg: dict) -> Backend:
    """Build the backend a model entry of config.yaml names (`backend:`); imports lazily so the
    random baseline never imports torch."""
    kind = cfg.get("backend")
    if kind not in _BACKENDS:
        raise ValueError(f"models.{name}.backend: unknown backend {kind!r}; choose one of {sorted(_BACKENDS)}")
    module, cls = _BACKENDS[kind].split(":")
    return getattr(importlib.import_module(module), cls)(name, cfg)
