"""A checkpoint in LLaRA's saved layout (Lightning state_dict, save='part') loads."""

import pytest
import torch

from lrworld.tracks.llara.hybrid.released import load_llara_checkpoint
from lrworld.tracks.llara.hybrid.train import with_lora
from lrworld.tracks.llara.hybrid.tokens import add_placeholder_tokens
from tests.support.tiny_llama import build_tiny_llama

HP = {"lora_r": 8, "lora_alpha": 32, "lora_dropout": 0.1}


def _load(d):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    return AutoTokenizer.from_pretrained(d), AutoModelForCausalLM.from_pretrained(d)


def test_llara_layout_loads(tmp_path):
    d = build_tiny_llama(tmp_path / "m")
    tok, base = _load(d)
    add_placeholder_tokens(tok, base)
    model = with_lora(base, HP)
    torch.manual_seed(1)
    sd = {"projector.mlp_proj.0.weight": torch.randn(16, 8), "projector.mlp_proj.0.bias": torch.randn(16),
          "projector.mlp_proj.2.weight": torch.randn(16, 16), "projector.mlp_proj.2.bias": torch.randn(16)}
    lora_keys = [k for k in model.state_dict() if "lora_" in k]
    assert len(lora_keys) == 2 * 7 * 2  # 2 layers x 7 modules x (A, B)
    for k in lora_keys:
        sd["llama_model." + k] = torch.randn_like(model.state_dict()[k])
    torch.save({"state_dict": sd, "epoch": 3}, tmp_path / "last.ckpt")
    tok2, base2 = _load(d)
    m2, proj, ids = load_llara_checkpoint(tmp_path / "last.ckpt", base2, tok2, HP)
    got = m2.state_dict()
    assert all(torch.equal(got[k], sd["llama_model." + k]) for k in lora_keys)
    assert torch.equal(proj.mlp_proj[2].weight, sd["projector.mlp_proj.2.weight"])
    assert (proj.rec_size, proj.llm_size) == (8, 16)


def test_wrong_layout_is_one_clear_error(tmp_path):
    d = build_tiny_llama(tmp_path / "m")
    tok, base = _load(d)
    torch.save({"state_dict": {"x": torch.zeros(1)}}, tmp_path / "bad.ckpt")
    with pytest.raises(ValueError, match="not a LLaRA checkpoint"):
        load_llara_checkpoint(tmp_path / "bad.ckpt", base, tok, HP)
