"""Load a released LLaRA checkpoint: a Lightning file whose ``state_dict`` (LLaRA's ``save='part'``:
trainable tensors only) holds ``projector.mlp_proj.*`` and ``llama_model.<peft names>`` LoRA tensors."""

from __future__ import annotations

import os

import torch

from lrworld.tracks.llara.hybrid.projector import MlpProjector
from lrworld.tracks.llara.hybrid.tokens import add_placeholder_tokens
from lrworld.tracks.llara.hybrid.train import with_lora


def load_llara_checkpoint(path: str | os.PathLike, base_model, tok, hp: dict):
    """(peft model, projector, placeholder token ids) from LLaRA's checkpoint at ``path``."""
    try:  # tensors only: a checkpoint that needs arbitrary objects rebuilt is code, and is refused
        st = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{path}: not loadable as tensors only ({first}); save its state_dict alone from a "
                         f"copy you trust, e.g. torch.save(ckpt['state_dict'], 'llara_state.pt')") from None
    sd = st.get("state_dict", st)
    proj = {k[len("projector."):]: v for k, v in sd.items() if k.startswith("projector.")}
    lora = {k[len("llama_model."):]: v for k, v in sd.items() if k.startswith("llama_model.")}
    if "mlp_proj.0.weight" not in proj:
        raise ValueError(f"{path}: no projector.mlp_proj.* tensors (not a LLaRA checkpoint)")
    token_ids = add_placeholder_tokens(tok, base_model)
    model = with_lora(base_model, hp)
    names = set(model.state_dict())
    unknown = sorted(set(lora) - names)
    if unknown:
        raise ValueError(f"{path}: {len(unknown)} LoRA tensors do not fit the base model, e.g. {unknown[0]}")
    model.load_state_dict(lora, strict=False)
    w = proj["mlp_proj.0.weight"]
    projector = MlpProjector(rec_size=w.shape[1], llm_size=w.shape[0])
    projector.load_state_dict(proj)
    model.eval()
    projector.eval()
    return model, projector, token_ids
