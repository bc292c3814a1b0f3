"""NeuMF (He et al., WWW 2017: GMF + MLP fused by a final linear layer) on implicit feedback.

Training data: every (user, item) pair that interacted, minus each user's last interaction
(contract order), which is held out for the leave-one-out HR@10 sanity figure (held-out item ranked
among 99 items the user never interacted with, sampled uniformly). Loss: binary cross-entropy with
`num_neg` uniformly sampled negative items per positive, drawn afresh every epoch (a sampled
negative may rarely be an interacted item; standard NCF practice). Seeded: same seed, same device,
same thread count -> same weights. Every random number (initial weights, negatives, batch order) is
drawn on the CPU whatever the device, so a GPU trains from the same draws and differs from the CPU
only by float rounding. Training runs in float64 (the draws are float32's, then widened): in float32 a
rounding difference of one ulp (another CPU's kernels, thread count or a GPU) grew to ~3e-6 in the
GMF embeddings over 5 epochs of ML-100K and moved golds; in float64 a 1e-14 difference stays below
1e-13, and the embeddings are stored as float32 (docs/groundtruth.md). The questions still take
their golds over several seeds with a margin (`train_neumf_seeds`, lrworld/groundtruth/prototypes.py)
for what rounding cannot remove: a different torch version or algorithm.

The ground-truth embeddings are the GMF embeddings: the only user and item vectors NeuMF places in
one space (the GMF branch scores a pair by their element-wise product), so a user-item cosine is
meaningful. The MLP embeddings are saved too, for audit.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import torch
from torch import nn

from lrworld.core import progress
from lrworld.recsys.neumf import NeuMF as _NeuMF
from lrworld.groundtruth.transactions import index_interactions
from lrworld.core.seeding import rng_for


class NeuMF(_NeuMF):
    """The shared NeuMF with sparse embedding gradients (SparseAdam on 25M-interaction data)."""

    def __init__(self, n_users: int, n_items: int, factors: int = 16, layers=(64, 32, 16)):
        super().__init__(n_users, n_items, factors, layers, sparse=True)


DTYPE = torch.float64  # training precision (module doc); the stored embeddings are float32


def pick_device(device: str | None = None) -> str:
    if device in (None, "", "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def leave_one_out(idx):
    """Boolean mask over interaction rows: True for each user's last row (held out), only for users
    with at least two interactions."""
    u = idx.user_codes
    n = len(u)
    last = np.zeros(n, dtype=bool)
    if n == 0:
        return last
    ends = np.r_[np.flatnonzero(np.diff(u)), n - 1]
    starts = np.r_[0, ends[:-1] + 1]
    last[ends[(ends - starts) >= 1]] = True
    return last


def hit_ratio_at_10(model, pos_keys: np.ndarray, test_u, test_i, n_items, rng, device, n_sampled=99,
                    chunk=512):
    """Leave-one-out HR@10: the held-out item ranked among n_sampled items the user never
    interacted with (uniform, without replacement). pos_keys: sorted user*n_items+item of all
    interactions. Vectorised: rejection sampling on a (users x 3*n_sampled) draw, redrawn rarely."""
    model.eval()
    hits = 0
    test_u = np.asarray(test_u, dtype=np.int64)
    test_i = np.asarray(test_i, dtype=np.int64)
    with torch.no_grad():
        for s in range(0, len(test_u), chunk):
            u, i = test_u[s:s + chunk], test_i[s:s + chunk]
            negs = np.zeros((len(u), n_sampled), dtype=np.int64)
            valid = np.zeros((len(u), n_sampled), dtype=bool)
            for r in range(len(u)):
                picked: list[int] = []
                lo, hi = np.searchsorted(pos_keys, [u[r] * n_items, (u[r] + 1) * n_items])
                want = min(n_sampled, n_items - int(hi - lo) - (1 if i[r] not in pos_keys[lo:hi] - u[r] * n_items else 0))
                if want < n_sampled:  # tiny catalogue: take every item the user never touched
                    seen = set((pos_keys[lo:hi] - u[r] * n_items).tolist()) | {int(i[r])}
                    picked = [c for c in range(n_items) if c not in seen][:n_sampled]
                while len(picked) < want:
                    cand = rng.integers(0, n_items, size=3 * n_sampled)
                    keys = u[r] * np.int64(n_items) + cand
                    pos = np.searchsorted(pos_keys, keys).clip(max=len(pos_keys) - 1)
                    ok = (pos_keys[pos] != keys) & (cand != i[r])
                    for c in cand[ok]:
                        if c not in picked:
                            picked.append(int(c))
                            if len(picked) == want:
                                break
                negs[r, :len(picked)] = picked
                valid[r, :len(picked)] = True
            items = torch.as_tensor(np.c_[i, negs], device=device)
            users = torch.as_tensor(np.repeat(u[:, None], n_sampled + 1, axis=1), device=device)
            sc = model(users.reshape(-1), items.reshape(-1)).reshape(len(u), -1)
            rank = ((sc[:, 1:] > sc[:, :1]) & torch.as_tensor(valid, device=device)).sum(dim=1)
            hits += int((rank < 10).sum())
    model.train()
    return hits / max(1, len(test_u))


def train_neumf(interactions: pd.DataFrame, epochs: int = 5, factors: int = 16, layers=(64, 32, 16),
                lr: float = 0.001, batch_size: int = 1024, num_neg: int = 4, seed: int = 0,
                device: str | None = None, eval_users: int = 2000, log=print):
    """Train; return dict(state_dict, user_ids, item_ids, config, log, hr10)."""
    device = pick_device(device)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    idx = index_interactions(interactions)
    held = leave_one_out(idx)
    key = np.unique(idx.user_codes[~held] * np.int64(idx.n_items) + idx.item_codes[~held])
    tr_u = torch.as_tensor(key // idx.n_items, device=device)
    tr_i = torch.as_tensor(key % idx.n_items, device=device)
    del key
    # initialised from float32 draws (the same on every device), trained in float64: see the module doc
    model = NeuMF(idx.n_users, idx.n_items, factors, layers).to(device=device, dtype=DTYPE)
    emb_params = [p for n, p in model.named_parameters() if n.startswith(("gmf_", "mlp_user", "mlp_item"))]
    dense_params = [p for n, p in model.named_parameters() if not n.startswith(("gmf_", "mlp_user", "mlp_item"))]
    opts = [torch.optim.SparseAdam(emb_params, lr=lr), torch.optim.Adam(dense_params, lr=lr)]
    lossf = nn.BCEWithLogitsLoss()
    n_pos = len(tr_u)
    gen = torch.Generator().manual_seed(seed)  # CPU draws on every device (see the module doc)
    history = []
    shown = progress.bar(epochs * -(-n_pos * (1 + num_neg) // batch_size), "neumf", "batch")
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        # positives once, each with num_neg uniform negatives
        users = tr_u.repeat(1 + num_neg)
        items = torch.cat([tr_i, torch.randint(0, idx.n_items, (n_pos * num_neg,), generator=gen).to(device)])
        labels = torch.cat([torch.ones(n_pos, device=device, dtype=DTYPE),
                            torch.zeros(n_pos * num_neg, device=device, dtype=DTYPE)])
        perm = torch.randperm(len(users), generator=gen).to(device)
        total, count = 0.0, 0
        for s in range(0, len(perm), batch_size):
            b = perm[s:s + batch_size]
            for opt in opts:
                opt.zero_grad(set_to_none=True)
            loss = lossf(model(users[b], items[b]), labels[b])
            loss.backward()
            for opt in opts:
                opt.step()
            total += float(loss.detach()) * len(b)
            count += len(b)
            shown.update()
        # the saved history holds what the training computed; its wall time goes to the job's log
        # only, so two runs of one training write the same neumf.pt (a resumed build equals a clean one)
        rec = {"epoch": epoch, "loss": total / max(1, count)}
        history.append(rec)
        log(f"neumf epoch {epoch}/{epochs} loss {rec['loss']:.4f} ({round(time.perf_counter() - t0, 3)}s, {device})")
    shown.close()
    # held-out HR@10 on up to eval_users users (seeded sample)
    test_rows = np.flatnonzero(held)
    if len(test_rows) > eval_users:
        test_rows = np.sort(rng.choice(test_rows, size=eval_users, replace=False))
    test_u, test_i = idx.user_codes[test_rows], idx.item_codes[test_rows]
    sel = np.isin(idx.user_codes, test_u)
    pos_keys = np.unique(idx.user_codes[sel] * np.int64(idx.n_items) + idx.item_codes[sel])
    hr10 = hit_ratio_at_10(model, pos_keys, test_u, test_i, idx.n_items, rng, device)
    log(f"neumf held-out HR@10 {hr10:.4f} over {len(test_u)} users (1 held-out + 99 sampled items)")
    return {
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "user_ids": [str(x) for x in idx.user_ids],
        "item_ids": [str(x) for x in idx.item_ids],
        "config": {"epochs": epochs, "factors": factors, "layers": list(layers), "lr": lr,
                   "batch_size": batch_size, "num_neg": num_neg, "seed": seed, "device": device},
        "log": history,
        "hr10": hr10,
        "hr10_users": int(len(test_u)),
    }


def training_seeds(seed: int, dataset: str, n: int) -> list[int]:
    """The torch seed of each of the n trainings, derived by name (never seed, seed+1, ...)."""
    return [int(rng_for(seed, dataset, "neumf", "train", str(j)).integers(2**31)) for j in range(n)]


def train_neumf_seeds(interactions: pd.DataFrame, seeds: int = 3, seed: int = 0, *, dataset: str, log=print,
                      **kwargs) -> dict:
    """`seeds` trainings of train_neumf, each from its own derived seed: {"seeds": [result, ...]}."""
    out = []
    for j, s in enumerate(training_seeds(seed, dataset, seeds)):
        log(f"neumf training {j + 1}/{seeds} (seed {s})")
        out.append(train_neumf(interactions, seed=s, log=log, **kwargs))
    return {"seeds": out, "base_seed": seed, "dataset": dataset}


def embeddings_frame(result: dict) -> pd.DataFrame:
    """seed (training index), kind ('user'|'item'), id, gmf (list[float32]), mlp (list[float32]);
    by seed, users first, ids sorted. `result`: train_neumf's (one training) or train_neumf_seeds'."""
    parts = []
    for j, res in enumerate(result.get("seeds", [result])):
        sd = res["state_dict"]
        for kind, ids in (("user", res["user_ids"]), ("item", res["item_ids"])):
            g = sd[f"gmf_{kind}.weight"].numpy().astype(np.float32)
            m = sd[f"mlp_{kind}.weight"].numpy().astype(np.float32)
            parts.append(pd.DataFrame({"seed": j, "kind": kind, "id": ids, "gmf": list(g), "mlp": list(m)}))
    return pd.concat(parts, ignore_index=True)


def weights_frame(path) -> pd.DataFrame:
    """The embeddings held by saved NeuMF weights (`neumf.pt`, tensors only), as embeddings_frame
    lays them out: what the audit recomputes the neural golds from."""
    from lrworld.core.tensors import load_tensors

    loaded = load_tensors(path, "NeuMF weights")
    frame = embeddings_frame(loaded)
    # the whole model, for a gold taken from its predicted preference (groundtruth.neural.gold: score)
    frame.attrs["preferences"] = Preferences(loaded)
    return frame


def n_trainings(emb: pd.DataFrame) -> int:
    return int(emb["seed"].max()) + 1 if "seed" in emb and len(emb) else 1


def embedding_matrix(emb: pd.DataFrame, kind: str, column: str = "gmf", seed: int = 0):
    """(ids array, float64 matrix) for one kind (and training) from an embeddings frame."""
    sub = emb[(emb["kind"] == kind) & ((emb["seed"] == seed) if "seed" in emb else True)]
    return np.asarray(sub["id"].astype(str)), np.vstack(sub[column].to_numpy()).astype(np.float64)


class Preferences:
    """NeuMF's predicted preference (its output logit, the whole model: GMF and MLP towers and the
    output layer) of one target for candidates of the other kind, under each saved training, in
    float64 from the weights: what `groundtruth.neural.gold: score` takes the neural gold from, and
    what the audit recomputes it with. `result`: train_neumf_seeds' (or the loaded neumf.pt).

    `scores` is the logit less the candidate's mean logit over (a seeded sample of MEAN_SAMPLE of)
    every target: what the model predicts for this target in particular. The raw logit's argmax is
    the same popular item for nearly every user of a small catalogue (Amazon Beauty, 3,000 users: 2
    distinct golds among 2,323 users), which no question can ask twice; `logits` gives it as it is."""

    MEAN_SAMPLE = 1000

    def __init__(self, result: dict):
        self.trainings = []
        for res in result.get("seeds", [result]):
            sd = {k: np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v, dtype=np.float64)
                  for k, v in res["state_dict"].items()}
            layers = sorted({int(k.split(".")[1]) for k in sd if k.startswith("mlp.") and k.endswith(".weight")})
            codes = {"user": {str(u): i for i, u in enumerate(res["user_ids"])},
                     "item": {str(i): j for j, i in enumerate(res["item_ids"])}}
            self.trainings.append((sd, layers, codes))
        self._means: dict[tuple[int, str], np.ndarray] = {}

    def ids(self, kind: str) -> list[str]:
        return list(self.trainings[0][2][kind]) if self.trainings else []

    @staticmethod
    def _forward(sd: dict, layers: list[int], u: np.ndarray, i: np.ndarray) -> np.ndarray:
        g = sd["gmf_user.weight"][u] * sd["gmf_item.weight"][i]
        h = np.concatenate([sd["mlp_user.weight"][u], sd["mlp_item.weight"][i]], axis=1)
        for k in layers:
            h = np.maximum(h @ sd[f"mlp.{k}.weight"].T + sd[f"mlp.{k}.bias"], 0.0)
        return (np.concatenate([g, h], axis=1) @ sd["out.weight"].T + sd["out.bias"]).reshape(-1)

    def _codes(self, codes: dict, target_kind: str, target: str, candidates: list[str]) -> tuple[int, np.ndarray]:
        other = "item" if target_kind == "user" else "user"
        if str(target) not in codes[target_kind]:
            raise KeyError(f"{target_kind} {target}")
        try:
            return codes[target_kind][str(target)], np.asarray([codes[other][str(x)] for x in candidates], np.int64)
        except KeyError as exc:
            raise KeyError(f"{other} {exc.args[0]}") from None

    def logits(self, target_kind: str, target: str, candidates: list[str]) -> np.ndarray:
        """(trainings, candidates) output logits; KeyError naming an id a training lacks."""
        return self._predict(target_kind, target, candidates, centred=False)

    def _predict(self, target_kind: str, target: str, candidates: list[str], centred: bool) -> np.ndarray:
        """Each training's logits, less each candidate's mean logit when `centred`."""
        out = []
        for j, (sd, layers, codes) in enumerate(self.trainings):
            t, c = self._codes(codes, target_kind, target, candidates)
            u, i = (np.full(len(c), t), c) if target_kind == "user" else (c, np.full(len(c), t))
            out.append(self._forward(sd, layers, u, i) - (self._mean(j, target_kind)[c] if centred else 0.0))
        return np.stack(out) if out else np.zeros((0, len(candidates)))

    def _mean(self, j: int, target_kind: str) -> np.ndarray:
        """Training j's mean logit of every candidate over a seeded sample of the targets."""
        if (j, target_kind) not in self._means:
            sd, layers, codes = self.trainings[j]
            n_t, n_c = len(codes[target_kind]), len(codes["item" if target_kind == "user" else "user"])
            sample = np.sort(rng_for(0, "neumf", "preference_mean", target_kind).permutation(n_t)[:self.MEAN_SAMPLE])
            total = np.zeros(n_c)
            for start in range(0, len(sample), 32):
                ts = sample[start:start + 32]
                t = np.repeat(ts, n_c)
                c = np.tile(np.arange(n_c), len(ts))
                u, i = (t, c) if target_kind == "user" else (c, t)
                total += self._forward(sd, layers, u, i).reshape(len(ts), n_c).sum(axis=0)
            self._means[(j, target_kind)] = total / max(1, len(sample))
        return self._means[(j, target_kind)]

    def scores(self, target_kind: str, target: str, candidates: list[str]) -> np.ndarray:
        """(trainings, candidates) the target's logit less each candidate's mean logit."""
        return self._predict(target_kind, target, candidates, centred=True)