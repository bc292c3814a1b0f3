"""LLaRA's MLP projector (``model/mlp_projector.py``): rec-model item embedding -> LLM hidden size.

Same layers and the same attribute name (``mlp_proj``) as LLaRA's, so that a released
checkpoint's ``projector.mlp_proj.*`` tensors load without renaming."""

from __future__ import annotations

from torch import nn


class MlpProjector(nn.Module):
    def __init__(self, rec_size: int = 64, llm_size: int = 4096):
        super().__init__()
        self.rec_size, self.llm_size = int(rec_size), int(llm_size)
        self.mlp_proj = nn.Sequential(nn.Linear(rec_size, llm_size), nn.GELU(), nn.Linear(llm_size, llm_size))

    def forward(self, x):
        return self.mlp_proj(x)
