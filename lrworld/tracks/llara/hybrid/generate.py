"""Greedy answers of a LLaRA model from ``inputs_embeds`` (LLaRA's ``MInterface.generate``): the
answer stage's backend and the training's validation both decode through :func:`greedy`."""

from __future__ import annotations

from typing import Sequence

import torch

from lrworld.tracks.llara.hybrid.tokens import wrap_embeds


def greedy(model, projector, tok, prompts: Sequence[str], histories, candidates, items, token_ids: dict,
           max_new_tokens: int, device) -> list[tuple[str, int, int, str]]:
    """(text, prompt tokens, new tokens, finish reason) per prompt of one batch."""
    pad, eos = tok.pad_token_id, tok.eos_token_id
    # the tokenizer's own special tokens, as LLaRA's test collate (<s> first for Llama)
    rows = [tok(p, add_special_tokens=True)["input_ids"] for p in prompts]
    width = max(map(len, rows))
    ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=device)
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=device)
    with torch.inference_mode():
        emb = wrap_embeds(model, projector, ids, histories, candidates, items, token_ids)
        # from inputs_embeds alone, a decoder-only model returns the new tokens only; greedy
        # with at least one new token, as LLaRA's generate (do_sample False, min_gen_length 1)
        gen = model.generate(inputs_embeds=emb, attention_mask=mask, max_new_tokens=max_new_tokens,
                             min_new_tokens=1, do_sample=False, num_beams=1, pad_token_id=pad)
    out = []
    for r, row in zip(rows, gen.tolist()):
        finish = "eos" if eos in row else "length"
        new = row[: row.index(eos)] if eos in row else row
        new = [t for t in new if t != pad]
        # stripped as LLaRA's generate does: a bare "\n" before eos is the empty answer (invalid)
        out.append((tok.decode(new, skip_special_tokens=True).strip(), len(r), len(new), finish))
    return out
