"""Compact collaborative-filtering baselines in torch: NCF (NeuMF), NGCF and LightGCN.

Each model scores every item for a user (full ranking). Training follows SRBench's setting: Adam,
learning rate 1e-3, fixed seed. NCF is trained pointwise (binary cross-entropy, ``n_neg`` uniform
negatives per positive, He et al. 2017); NGCF (Wang et al. 2019) and LightGCN (He et al. 2020) are
trained with BPR (one uniform negative per positive) plus L2 on the batch's layer-0 embeddings.

Interface (shared with `lrworld.recsys.sequential` in spirit)::

    model = build("lightgcn", n_users, n_items, users, items, seed=0)
    training = fit(model, users, items, max_epochs=20, seed=0)   # a recsys.training.Training
    scores = score(model, user_indices)          # FloatTensor [len(user_indices), n_items]

``users``/``items`` are 0-based integer arrays of the training interactions (the caller maps
string ids to indices). RecBole 1.2.1 was not used: its Config() assigns ``np.float_`` and
``np.unicode_``, which NumPy 2 removed, and it pins ray<=2.6.3 (see docs/srbench.md).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
from torch import nn

from lrworld.recsys.neumf import NeuMF
from lrworld.recsys.training import Training, train_epochs

def normalized_adjacency(n_users: int, n_items: int, users: np.ndarray, items: np.ndarray) -> torch.Tensor:
    """Â = D^-1/2 A D^-1/2 of the symmetric user-item bipartite graph ((U+I) x (U+I), sparse COO);
    repeated (user, item) pairs count once."""
    pairs = np.unique(np.stack([users, items + n_users]), axis=1)
    row = np.concatenate([pairs[0], pairs[1]])
    col = np.concatenate([pairs[1], pairs[0]])
    n = n_users + n_items
    deg = np.bincount(row, minlength=n).astype(np.float32)
    dinv = np.zeros(n, dtype=np.float32)
    dinv[deg > 0] = deg[deg > 0] ** -0.5
    val = dinv[row] * dinv[col]
    idx = torch.from_numpy(np.stack([row, col]).astype(np.int64))
    return torch.sparse_coo_tensor(idx, torch.from_numpy(val), (n, n), check_invariants=False).coalesce()


class NCF(NeuMF):
    """SRBench's NCF: the shared NeuMF (dense gradients, Adam), with full ranking over all items."""

    loss_kind = "bce"
    propagates = False  # no user-item graph: built without the adjacency

    def __init__(self, n_users: int, n_items: int, dim: int = 32, mlp: tuple[int, ...] = (64, 32, 16)):
        super().__init__(n_users, n_items, factors=dim, layers=mlp)

    @torch.no_grad()
    def full_scores(self, users: torch.Tensor, max_pairs: int = 400_000) -> torch.Tensor:
        out = []
        chunk = max(1, max_pairs // self.n_items)  # bounds memory on large catalogues
        items = torch.arange(self.n_items)
        for s in range(0, len(users), chunk):
            u = users[s:s + chunk]
            uu = u.repeat_interleave(self.n_items)
            ii = items.repeat(len(u))
            out.append(self.forward(uu, ii).view(len(u), self.n_items))
        return torch.cat(out) if out else torch.empty(0, self.n_items)


class _GraphModel(nn.Module):
    propagates = True  # built over the normalised user-item adjacency
    loss_kind = "bpr"

    def __init__(self, n_users: int, n_items: int, adj: torch.Tensor, dim: int, n_layers: int):
        super().__init__()
        self.n_users, self.n_items, self.n_layers = n_users, n_items, n_layers
        self.adj = adj
        self.emb = nn.Embedding(n_users + n_items, dim)

    def propagate(self) -> torch.Tensor:  # [(U+I), d_out]
        raise NotImplementedError

    def split(self, e: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return e[: self.n_users], e[self.n_users:]

    @torch.no_grad()
    def full_scores(self, users: torch.Tensor) -> torch.Tensor:
        ue, ie = self.split(self.propagate())
        return ue[users] @ ie.T


class LightGCN(_GraphModel):
    """E^{l+1} = Â E^l; final embedding = mean of E^0..E^L; score = <e_u, e_i>."""

    def __init__(self, n_users, n_items, adj, dim: int = 64, n_layers: int = 2):
        super().__init__(n_users, n_items, adj, dim, n_layers)
        nn.init.normal_(self.emb.weight, std=0.1)

    def propagate(self) -> torch.Tensor:
        e = self.emb.weight
        acc = e
        for _ in range(self.n_layers):
            e = torch.sparse.mm(self.adj, e)
            acc = acc + e
        return acc / (self.n_layers + 1)


class NGCF(_GraphModel):
    """E^{l+1} = LeakyReLU((Â + I) E^l W1 + (Â E^l ⊙ E^l) W2), each layer L2-normalised; final
    embedding = concatenation of E^0..E^L; score = <e_u, e_i>."""

    def __init__(self, n_users, n_items, adj, dim: int = 64, n_layers: int = 2):
        super().__init__(n_users, n_items, adj, dim, n_layers)
        nn.init.xavier_uniform_(self.emb.weight)
        self.w1 = nn.ModuleList(nn.Linear(dim, dim) for _ in range(n_layers))
        self.w2 = nn.ModuleList(nn.Linear(dim, dim) for _ in range(n_layers))
        self.act = nn.LeakyReLU(0.2)

    def propagate(self) -> torch.Tensor:
        e = self.emb.weight
        outs = [e]
        for w1, w2 in zip(self.w1, self.w2):
            side = torch.sparse.mm(self.adj, e)
            e = self.act(w1(side + e) + w2(side * e))
            e = nn.functional.normalize(e, dim=1)
            outs.append(e)
        return torch.cat(outs, dim=1)


MODELS = {"ncf": NCF, "ngcf": NGCF, "lightgcn": LightGCN}


def build(name: str, n_users: int, n_items: int, users: np.ndarray, items: np.ndarray, seed: int = 0,
          **hp) -> nn.Module:
    """Construct a model with seeded initialisation. ``hp``: dim, n_layers (graph), mlp (NCF)."""
    torch.manual_seed(seed)
    name = name.lower()
    if name not in MODELS:
        raise ValueError(f"unknown CF model {name!r}; choose one of {tuple(MODELS)}")
    if not MODELS[name].propagates:
        return MODELS[name](n_users, n_items, **hp)
    # the graph models propagate over the normalised user-item adjacency
    adj = normalized_adjacency(n_users, n_items, np.asarray(users), np.asarray(items))
    return MODELS[name](n_users, n_items, adj, **hp)


def fit(model: nn.Module, users: np.ndarray, items: np.ndarray, max_epochs: int, seed: int, lr: float = 1e-3,
        batch_size: int = 2048, n_neg: int = 4, reg: float = 1e-4, validate: Callable[[], float] | None = None,
        patience: int | None = None, valid_metric: str | None = None,
        log: Callable[[str], None] | None = None) -> Training:
    """Train with Adam(lr) for at most ``max_epochs`` epochs; with ``validate`` (higher is
    better) stop after ``patience`` epochs without improvement and keep the best epoch's
    weights (:func:`lrworld.recsys.training.train_epochs`). Negatives are drawn uniformly over
    all items (a rare collision with a positive is tolerated, as in common implementations)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    users = np.asarray(users, dtype=np.int64)
    items = np.asarray(items, dtype=np.int64)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def run_epoch() -> float:
        order = rng.permutation(len(users))
        tot, nb = 0.0, 0
        for s in range(0, len(order), batch_size):
            idx = order[s:s + batch_size]
            u = torch.from_numpy(users[idx])
            pos = torch.from_numpy(items[idx])
            if model.loss_kind == "bce":
                neg = torch.from_numpy(rng.integers(0, model.n_items, size=(len(idx), n_neg)))
                uu = torch.cat([u, u.repeat_interleave(n_neg)])
                ii = torch.cat([pos, neg.reshape(-1)])
                y = torch.cat([torch.ones(len(idx)), torch.zeros(len(idx) * n_neg)])
                loss = nn.functional.binary_cross_entropy_with_logits(model(uu, ii), y)
            else:
                neg = torch.from_numpy(rng.integers(0, model.n_items, size=len(idx)))
                ue, ie = model.split(model.propagate())
                eu, ep_, en = ue[u], ie[pos], ie[neg]
                x = (eu * ep_).sum(1) - (eu * en).sum(1)
                loss = -nn.functional.logsigmoid(x).mean()
                e0 = model.emb.weight
                l2 = (e0[u].pow(2).sum() + e0[model.n_users + pos].pow(2).sum() + e0[model.n_users + neg].pow(2).sum())
                loss = loss + reg * l2 / len(idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach())
            nb += 1
        return tot / max(nb, 1)

    return train_epochs(model, run_epoch, max_epochs, validate, patience, valid_metric, log=log)


@torch.no_grad()
def score(model: nn.Module, users) -> torch.Tensor:
    """Scores of every item for each user index: FloatTensor [len(users), n_items]."""
    model.eval()
    return model.full_scores(torch.as_tensor(np.asarray(users), dtype=torch.long))
