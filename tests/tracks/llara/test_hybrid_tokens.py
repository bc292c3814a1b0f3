"""Hybrid prompts: behavioural embeddings enter exactly at their placeholders."""

import pytest
import torch

from lrworld.recsys.sequential import SASRec
from lrworld.tracks.llara.hybrid.projector import MlpProjector
from lrworld.tracks.llara.hybrid.tokens import (CANS, HIST, PH, add_placeholder_tokens, hybrid_prompt, item_table,
                                                wrap_embeds)
from tests.support.tiny_llama import build_tiny_llama

TEMPLATE = "this user has watched [HistoryHere] . candidates are [CansHere] . answer is"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    d = build_tiny_llama(tmp_path_factory.mktemp("tiny_llama"))
    tok, model = AutoTokenizer.from_pretrained(d), AutoModelForCausalLM.from_pretrained(d)
    return tok, model, add_placeholder_tokens(tok, model)


def test_prompt_forms():
    assert hybrid_prompt(TEMPLATE, ["a", "b"], ["c"]) == \
        f"this user has watched a {HIST}, b {HIST} . candidates are c {CANS} . answer is"
    assert hybrid_prompt(TEMPLATE, ["a", "b"], ["c"], hybrid=False) == \
        f"this user has watched a {PH}, b {PH} . candidates are c {PH} . answer is"


def test_swapped_history_embedding_changes_only_its_placeholder(tiny):
    tok, model, ids = tiny
    torch.manual_seed(0)
    rec = SASRec(n_items=6, seq_len=10, hidden=8)
    proj = MlpProjector(rec_size=8, llm_size=model.config.hidden_size)
    hist, cans = [0, 1, 2], [3, 4]
    text = hybrid_prompt(TEMPLATE, ["alpha", "beta", "gamma"], ["delta", "epsilon"])
    input_ids = tok(text, return_tensors="pt")["input_ids"]
    items = item_table(rec).clone()
    with torch.no_grad():
        before = wrap_embeds(model, proj, input_ids, [hist], [cans], items, ids)
        items[1] = torch.randn(8)  # the rec-model embedding of the 2nd history item
        after = wrap_embeds(model, proj, input_ids, [hist], [cans], items, ids)
    changed = (before != after).any(-1)[0].nonzero().view(-1).tolist()
    hist_pos = (input_ids[0] == ids[HIST]).nonzero().view(-1).tolist()
    assert len(hist_pos) == 3
    assert changed == [hist_pos[1]]
    # and the slot holds the projector's output for the new embedding, not the token's own row
    assert torch.allclose(after[0, hist_pos[1]], proj(items[1]).detach())


def test_placeholder_count_mismatch_is_an_error(tiny):
    tok, model, ids = tiny
    rec = SASRec(n_items=6, seq_len=10, hidden=8)
    proj = MlpProjector(rec_size=8, llm_size=model.config.hidden_size)
    input_ids = tok(hybrid_prompt(TEMPLATE, ["alpha"], ["delta"]), return_tensors="pt")["input_ids"]
    with pytest.raises(ValueError, match="1 \\[HistoryEmb\\] placeholders for 2 items"):
        wrap_embeds(model, proj, input_ids, [[0, 1]], [[3]], item_table(rec), ids)
