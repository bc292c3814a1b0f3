"""Compact torch sequential recommenders (GRU4Rec, Caser, SASRec) and a popularity baseline.

One interface for all four, so that the LLaRA track and SRBench share them::

    model = GRU4Rec(n_items, seq_len=10)          # or Caser(...), SASRec(...), Popularity(n_items)
    fit(model, histories, next_items, epochs=20, seed=0)
    logits = score(model, histories)              # np.ndarray [n, n_items]
    picks = pick(model, histories, candidates)    # index of the best candidate per question

``histories`` are lists of item ids (0..n_items-1, chronological, no padding, non-empty);
``next_items`` the targets. Models read the last ``seq_len`` items, left-padded with the id
``n_items``. Training is next-item prediction with a full softmax (cross-entropy over all items),
Adam, fixed epochs, seeded; no early stopping (pass what you want to evaluate on elsewhere).

Architectures follow the papers in compact form: GRU4Rec (Hidasi et al. 2016; one GRU layer, the
last hidden state scores every item), Caser (Tang & Wang 2018; horizontal convolutions of heights
1..L + vertical convolutions over the L x d embedding "image"), SASRec (Kang & McAuley 2018;
learned positions, pre-norm self-attention blocks, the last position scores items through the
tied item embeddings). No maintained package works here: RecBole is not installed and pins older
numpy/torch behaviour, so these modules are ours and are tested in tests/baselines.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from lrworld.core import progress

__all__ = ["GRU4Rec", "Caser", "SASRec", "Popularity", "SeqRecommender", "make_model", "pad_histories", "fit",
           "score", "pick", "MODELS"]


def pad_histories(histories: Sequence[Sequence[int]], seq_len: int, pad_id: int) -> torch.Tensor:
    """Last ``seq_len`` items of each history, left-padded with ``pad_id``: LongTensor [n, seq_len]."""
    out = torch.full((len(histories), seq_len), pad_id, dtype=torch.long)
    for r, h in enumerate(histories):
        h = list(h)[-seq_len:]
        if not h:
            raise ValueError(f"history {r} is empty")
        out[r, seq_len - len(h):] = torch.tensor(h, dtype=torch.long)
    return out


class SeqRecommender(nn.Module):
    """Base: item embedding with a padding row; ``forward(seqs) -> logits [B, n_items]``."""

    def __init__(self, n_items: int, seq_len: int = 10, hidden: int = 64, dropout: float = 0.1):
        super().__init__()
        self.n_items, self.seq_len, self.hidden = int(n_items), int(seq_len), int(hidden)
        self.pad_id = self.n_items
        self.item_emb = nn.Embedding(self.n_items + 1, hidden, padding_idx=self.pad_id)
        self.dropout = nn.Dropout(dropout)

    def encode(self, seqs: torch.Tensor) -> torch.Tensor:  # [B, L] -> [B, hidden]
        raise NotImplementedError

    def reset_parameters(self) -> None:
        """Re-initialise every weight from torch's global RNG (``fit`` seeds it first)."""
        for m in self.modules():
            if m is self:
                continue
            if hasattr(m, "reset_parameters"):
                m.reset_parameters()
            elif hasattr(m, "_reset_parameters"):  # nn.MultiheadAttention
                m._reset_parameters()

    def forward(self, seqs: torch.Tensor) -> torch.Tensor:
        return self.head(self.encode(seqs))

    def head(self, state: torch.Tensor) -> torch.Tensor:
        return self.out(state)


class GRU4Rec(SeqRecommender):
    def __init__(self, n_items: int, seq_len: int = 10, hidden: int = 64, dropout: float = 0.1):
        super().__init__(n_items, seq_len, hidden, dropout)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, self.n_items)

    def encode(self, seqs):
        # Left padding: the real items are the last steps, so the final state has read them all.
        # Pack to skip the padding steps entirely.
        lengths = (seqs != self.pad_id).sum(1)
        # right-align -> left-align for packing
        idx = (torch.arange(seqs.size(1)).unsqueeze(0) + (seqs.size(1) - lengths).unsqueeze(1)) % seqs.size(1)
        left = torch.gather(seqs, 1, idx)
        emb = self.dropout(self.item_emb(left))
        packed = nn.utils.rnn.pack_padded_sequence(emb, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, h = self.gru(packed)
        return self.dropout(h[-1])


class Caser(SeqRecommender):
    def __init__(self, n_items: int, seq_len: int = 10, hidden: int = 64, dropout: float = 0.1,
                 n_h: int = 16, n_v: int = 4):
        super().__init__(n_items, seq_len, hidden, dropout)
        self.h_convs = nn.ModuleList(nn.Conv2d(1, n_h, (k, hidden)) for k in range(1, seq_len + 1))
        self.v_conv = nn.Conv2d(1, n_v, (seq_len, 1))
        self.fc = nn.Linear(n_h * seq_len + n_v * hidden, hidden)
        self.out = nn.Linear(hidden, self.n_items)

    def encode(self, seqs):
        x = self.item_emb(seqs).unsqueeze(1)  # [B, 1, L, d]
        hs = []
        for conv in self.h_convs:
            c = F.relu(conv(x).squeeze(3))  # [B, n_h, L-k+1]
            hs.append(F.max_pool1d(c, c.size(2)).squeeze(2))
        v = self.v_conv(x).view(x.size(0), -1)  # [B, n_v * d]
        z = torch.cat([*hs, v], 1)
        return F.relu(self.fc(self.dropout(z)))


class SASRec(SeqRecommender):
    def __init__(self, n_items: int, seq_len: int = 10, hidden: int = 64, dropout: float = 0.1,
                 n_heads: int = 1, n_layers: int = 2):
        super().__init__(n_items, seq_len, hidden, dropout)
        self.pos_emb = nn.Embedding(seq_len, hidden)
        layer = nn.TransformerEncoderLayer(hidden, n_heads, dim_feedforward=hidden, dropout=dropout,
                                           batch_first=True, norm_first=True, activation="relu")
        self.blocks = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(hidden)
        self.out = None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        super().reset_parameters()
        # Scores are dot products with these embeddings (tied head): start them at unit-norm rows
        # so that the first logits are O(1), not O(hidden).
        nn.init.normal_(self.item_emb.weight, std=self.hidden ** -0.5)
        with torch.no_grad():
            self.item_emb.weight[self.pad_id].zero_()

    def encode(self, seqs):
        pad = seqs == self.pad_id
        pos = torch.arange(seqs.size(1)).unsqueeze(0)
        x = self.item_emb(seqs) * math.sqrt(self.hidden) + self.pos_emb(pos)
        x = self.dropout(x) * (~pad).unsqueeze(2)
        # Causal mask: position t reads items <= t; padding is masked as keys. Left padding means
        # pads only precede real items; every position may read itself, so no row is all -inf.
        causal = torch.triu(torch.ones(seqs.size(1), seqs.size(1), dtype=torch.bool), 1)
        x = self._run(x, causal, pad)
        return self.norm(x[:, -1])

    def _run(self, x, causal, keymask):
        # Combine causal and key-padding masks into one float mask per batch row: [B*heads, L, L].
        L = x.size(1)
        allowed = ~causal.unsqueeze(0) & ~keymask.unsqueeze(1)  # [B, L, L]
        allowed = allowed | torch.eye(L, dtype=torch.bool).unsqueeze(0)
        mask = torch.zeros(allowed.shape, dtype=x.dtype).masked_fill(~allowed, float("-inf"))
        heads = self.blocks.layers[0].self_attn.num_heads
        mask = mask.repeat_interleave(heads, 0)
        return self.blocks(x, mask=mask)

    def head(self, state):
        return state @ self.item_emb.weight[: self.n_items].T


class Popularity:
    """Scores every item by how often it is a training target (ties: lower id first)."""

    def __init__(self, n_items: int, seq_len: int = 10, **_):
        self.n_items, self.seq_len = int(n_items), int(seq_len)
        self.counts = np.zeros(self.n_items, dtype=np.float64)


MODELS = {"gru4rec": GRU4Rec, "caser": Caser, "sasrec": SASRec, "popularity": Popularity}


def make_model(name: str, n_items: int, **kwargs):
    key = name.lower()
    if key not in MODELS:
        raise ValueError(f"unknown baseline {name!r}; choose one of {sorted(MODELS)}")
    return MODELS[key](n_items, **kwargs)


def _check(histories, next_items, n_items):
    if len(histories) != len(next_items):
        raise ValueError(f"{len(histories)} histories but {len(next_items)} targets")
    for k, h in enumerate(histories):
        if not len(h):
            raise ValueError(f"history {k} is empty")
    ids = np.fromiter((i for h in histories for i in h), dtype=np.int64)
    tgt = np.asarray(next_items, dtype=np.int64)
    for arr in (ids, tgt):
        if arr.size and (arr.min() < 0 or arr.max() >= n_items):
            raise ValueError(f"item ids must be in 0..{n_items - 1}")


def fit(model, histories: Sequence[Sequence[int]], next_items: Sequence[int], epochs: int = 20, seed: int = 0,
        lr: float = 1e-3, batch_size: int = 256, weight_decay: float = 0.0, log=None,
        val: tuple[Sequence[Sequence[int]], Sequence[int]] | None = None, patience: int = 3,
        reset: bool = True) -> list[float]:
    """Train in place; returns the mean training loss of each epoch (Popularity: []).

    ``reset`` (default): start from a fresh initialisation drawn from ``seed``, so the same call
    gives the same model whatever happened before; ``reset=False`` continues training.

    With ``val=(histories, next_items)``: after each epoch the validation cross-entropy is
    measured; training stops after ``patience`` epochs without improvement and the best epoch's
    weights are restored (``model.best_epoch``, ``model.val_losses``)."""
    _check(histories, next_items, model.n_items)
    if isinstance(model, Popularity):
        model.counts = np.bincount(np.asarray(next_items, dtype=np.int64), minlength=model.n_items).astype(np.float64)
        return []
    torch.manual_seed(seed)
    if reset:
        model.reset_parameters()
    gen = torch.Generator().manual_seed(seed)
    x = pad_histories(histories, model.seq_len, model.pad_id)
    y = torch.as_tensor(np.asarray(next_items, dtype=np.int64))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    losses, model.val_losses, model.best_epoch = [], [], epochs
    if val is not None:
        _check(val[0], val[1], model.n_items)
        vx = pad_histories(val[0], model.seq_len, model.pad_id)
        vy = torch.as_tensor(np.asarray(val[1], dtype=np.int64))
        best, best_state, bad = float("inf"), None, 0
    # an upper bound: early stopping may end it sooner
    shown = progress.bar(epochs * -(-len(y) // batch_size), type(model).__name__, "batch")
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(y), generator=gen)
        total = 0.0
        for s in range(0, len(y), batch_size):
            b = perm[s:s + batch_size]
            loss = F.cross_entropy(model(x[b]), y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(b)
            shown.update()
        losses.append(total / len(y))
        if log:
            log(f"{type(model).__name__} epoch {ep + 1}/{epochs} loss {losses[-1]:.4f}")
        if val is not None:
            model.eval()
            with torch.no_grad():
                vl = sum(F.cross_entropy(model(vx[i:i + 1024]), vy[i:i + 1024], reduction="sum").item()
                         for i in range(0, len(vy), 1024)) / len(vy)
            model.val_losses.append(vl)
            if log:
                log(f"{type(model).__name__} epoch {ep + 1} validation loss {vl:.4f}")
            if vl < best - 1e-4:
                best, bad, model.best_epoch = vl, 0, ep + 1
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            else:
                bad += 1
                if bad >= patience:
                    break
    shown.close()
    if val is not None and best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return losses


@torch.no_grad()
def score(model, histories: Sequence[Sequence[int]], batch_size: int = 1024) -> np.ndarray:
    """Scores of every item for each history: float32 [n, n_items]."""
    if isinstance(model, Popularity):
        return np.tile(model.counts.astype(np.float32), (len(histories), 1))
    model.eval()
    x = pad_histories(histories, model.seq_len, model.pad_id)
    return torch.cat([model(x[s:s + batch_size]) for s in range(0, len(x), batch_size)]).numpy()


def pick(model, histories: Sequence[Sequence[int]], candidates: Sequence[Sequence[int]],
         batch_size: int = 1024) -> tuple[list[int], list[list[float]]]:
    """Adapt a full-ranking model to a candidate set (LLaRA: "the item with the highest probability
    in the candidate set"): (index of the best candidate per question, candidate scores). Ties go
    to the earlier candidate (candidate order is a seeded shuffle)."""
    if len(histories) != len(candidates):
        raise ValueError(f"{len(histories)} histories but {len(candidates)} candidate sets")
    s = score(model, histories, batch_size)
    cand_scores = [s[r, list(c)].tolist() for r, c in enumerate(candidates)]
    return [int(np.argmax(cs)) for cs in cand_scores], cand_scores
