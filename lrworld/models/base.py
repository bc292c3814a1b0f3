"""The contract between the pipeline and a model backend.

A backend receives prompt items and returns one `Response` per item, in order. It never parses
the answer: parsing belongs to `lrworld.scoring.parse`, so every backend is scored the same way.
Backends that can score the candidate labels directly (choice scoring) also fill `choice_index`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Protocol, Sequence


@dataclass(frozen=True)
class PromptItem:
    qid: str
    prompt: str
    labels: tuple[str, ...]  # option labels shown to the model, e.g. ("A", "B", "C", "D")
    candidates: tuple[str, ...] = ()  # candidate texts, same order as labels
    image_paths: tuple[str, ...] = ()
    # a free-generation request for a list of `list_k` ids out of `id_range` (SRBench): what a
    # model is asked to produce, so a baseline such as `random` can answer it in kind
    list_k: int | None = None
    id_range: tuple[int, int] | None = None
    # LLaRA's hybrid prompts: the item ids whose behavioural embeddings fill the prompt's
    # [HistoryEmb] / [CansEmb] placeholders, in order (lrworld/tracks/llara/hybrid/backend.py)
    history_items: tuple[int, ...] = ()
    candidate_items: tuple[int, ...] = ()
    # per-option signals a shortcut answerer reads (lrworld/models/shortcut.py): name -> one value
    # per option; a model never sees them
    option_signals: dict | None = None


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


def in_order(items: Sequence[PromptItem], answered: Iterable[tuple[int, Response]]) -> list[Response]:
    """`answer` from an `answer_iter` that yields (index into items, Response) as each completes."""
    out: list[Response | None] = [None] * len(items)
    for i, resp in answered:
        out[i] = resp
    return out  # type: ignore[return-value]
