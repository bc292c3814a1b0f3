"""Hybrid prompts and the input embeddings that carry behavioural tokens.

As LLaRA's ``TrainCollater`` + ``MInterface.wrap_emb``: every history title is followed by
``[HistoryEmb]``, every candidate title by ``[CansEmb]``; in the text form both are ``[PH]`` (a
plain learned token). The embedding at each ``[HistoryEmb]``/``[CansEmb]`` position is replaced,
in order, by ``projector(item_embedding[item])`` where ``item_embedding`` is the item table of a
trained traditional model (for SASRec, Caser and GRU4Rec alike LLaRA reads the embedding table:
``cacu_x`` and ``item_embeddings`` are both the table lookup).
"""

from __future__ import annotations

from typing import Sequence

import torch

from lrworld.tracks.llara.prompts import render

HIST, CANS, PH = "[HistoryEmb]", "[CansEmb]", "[PH]"
SPECIAL_TOKENS = [PH, HIST, CANS, "[ItemEmb]"]  # LLaRA's order (its tokenizer gets them in this order)


def hybrid_prompt(template: str, history_titles: Sequence[str], candidate_titles: Sequence[str],
                  hybrid: bool = True) -> str:
    """The prompt text: each title followed by its placeholder (``hybrid=False``: ``[PH]``)."""
    h, c = (HIST, CANS) if hybrid else (PH, PH)
    return render(template, [f"{t} {h}" for t in history_titles], [f"{t} {c}" for t in candidate_titles])


def add_placeholder_tokens(tokenizer, model) -> dict[str, int]:
    """Add LLaRA's special tokens (idempotent) and grow the embedding table to match."""
    tokenizer.add_special_tokens({"additional_special_tokens": SPECIAL_TOKENS})
    if model.get_input_embeddings().weight.shape[0] < len(tokenizer):
        model.resize_token_embeddings(len(tokenizer))
    return {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}


def item_table(rec_model) -> torch.Tensor:
    """The rec model's item embeddings [n_items + 1 (padding), d], frozen: lrworld's models'
    ``item_emb``, LLaRA's released models' ``item_embeddings`` (both index items 0..n-1, pad n)."""
    table = rec_model.item_emb if hasattr(rec_model, "item_emb") else rec_model.item_embeddings
    return table.weight.detach()


def wrap_embeds(model, projector, input_ids: torch.Tensor, histories: Sequence[Sequence[int]],
                candidates: Sequence[Sequence[int]], items: torch.Tensor, token_ids: dict[str, int]) -> torch.Tensor:
    """Input embeddings of ``input_ids`` [B, T] with every history/candidate placeholder replaced by
    its item's projected behavioural embedding. A row whose placeholder count differs from its item
    count is an error (LLaRA silently zips the shorter)."""
    emb = model.get_input_embeddings()(input_ids).clone()
    for b in range(input_ids.shape[0]):
        for tok, ids in ((HIST, histories[b]), (CANS, candidates[b])):
            pos = (input_ids[b] == token_ids[tok]).nonzero().view(-1)
            if pos.numel() == 0:
                continue
            if pos.numel() != len(ids):
                raise ValueError(f"row {b}: {pos.numel()} {tok} placeholders for {len(ids)} items")
            # in the projector's dtype (float32 beside a bfloat16 base model), then the LLM's
            rows = items[torch.as_tensor(list(ids), dtype=torch.long, device=items.device)]
            vec = projector(rows.to(next(projector.parameters()).dtype))
            emb[b, pos] = vec.to(emb.dtype)
    return emb
