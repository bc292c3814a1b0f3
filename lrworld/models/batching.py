"""How a local backend groups a job's prompts into forward passes.

Two policies:
- `batch_size`: fixed-size batches in input order (the old way);
- `max_batch_tokens`: prompts sorted by length (longest first), each batch filled while
  rows x longest row (the padded rectangle a batched forward pass computes) stays within the
  budget. A prompt longer than the budget gets a batch of its own.

Longest first so that the largest batch runs first: a budget too big for the device fails in
the first seconds, not an hour in. Written by hand because the libraries that do this
(vLLM's scheduler, TGI's router) are servers, not functions one can call on a list of lengths.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass
class PaddingStats:
    """Real and padded token counts over the batches a job ran."""

    batches: int = 0
    tokens: int = 0  # real prompt tokens
    slots: int = 0  # rows x longest row, summed over batches

    def add(self, lengths: Sequence[int]) -> None:
        self.batches += 1
        self.tokens += sum(lengths)
        self.slots += len(lengths) * max(lengths)

    @property
    def padding_share(self) -> float:
        return (self.slots - self.tokens) / self.slots if self.slots else 0.0

    def summary(self) -> dict:
        return {"batches": self.batches, "prompt_tokens": self.tokens, "padded_slots": self.slots,
                "padding_share": round(self.padding_share, 4)}


def plan_batches(lengths: Sequence[int], *, batch_size: int | None = None,
                 max_batch_tokens: int | None = None) -> list[list[int]]:
    """Lists of indices into `lengths`, one per batch; exactly one of the two policies."""
    if (batch_size is None) == (max_batch_tokens is None):
        raise ValueError("give exactly one of batch_size and max_batch_tokens")
    if batch_size is not None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        return [list(range(s, min(s + batch_size, len(lengths)))) for s in range(0, len(lengths), batch_size)]
    if max_batch_tokens < 1:
        raise ValueError(f"max_batch_tokens must be >= 1, got {max_batch_tokens}")
    # stable: prompts of equal length keep their input order (same measure, same template prefix)
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    for i in order:
        # the batch's first row is its longest (descending order)
        if batches and (len(batches[-1]) + 1) * lengths[batches[-1][0]] <= max_batch_tokens:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches
