"""NeuMF (He et al. 2017): a GMF branch (element-wise product of user and item embeddings) and an
MLP branch on their concatenation, joined by one output layer; the score is an interaction logit.

One architecture serves both the LRWorld ground truth (lrworld.groundtruth.neumf, trained with
sparse embedding gradients on large catalogues) and SRBench's NCF baseline (lrworld.recsys.cf).
"""

from __future__ import annotations

import torch
from torch import nn


class NeuMF(nn.Module):
    def __init__(self, n_users: int, n_items: int, factors: int = 16, layers=(64, 32, 16), sparse: bool = False):
        super().__init__()
        layers = list(layers)
        if layers[0] % 2:
            raise ValueError("layers[0] must be even (it is user+item MLP embedding width)")
        self.n_users, self.n_items = n_users, n_items
        # sparse gradients: an optimiser step touches only the rows in the batch, not whole tables
        self.gmf_user = nn.Embedding(n_users, factors, sparse=sparse)
        self.gmf_item = nn.Embedding(n_items, factors, sparse=sparse)
        self.mlp_user = nn.Embedding(n_users, layers[0] // 2, sparse=sparse)
        self.mlp_item = nn.Embedding(n_items, layers[0] // 2, sparse=sparse)
        mlp: list[nn.Module] = []
        for a, b in zip(layers[:-1], layers[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        self.mlp = nn.Sequential(*mlp)
        self.out = nn.Linear(factors + layers[-1], 1)
        for emb in (self.gmf_user, self.gmf_item, self.mlp_user, self.mlp_item):
            nn.init.normal_(emb.weight, std=0.01)

    def forward(self, u: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
        g = self.gmf_user(u) * self.gmf_item(i)
        m = self.mlp(torch.cat([self.mlp_user(u), self.mlp_item(i)], dim=-1))
        return self.out(torch.cat([g, m], dim=-1)).squeeze(-1)
