"""Produce recommendation lists for SRBench: NN-SR baselines over T seeds (LLM-SR's T runs go
through the inference stage: lrworld.tracks.srbench.llm).

Every recommender, NN or LLM, yields the same records (one per run and evaluated user)::

    {"run": t, "seed": s, "user_id": u, "items": [best first, <= K_max], "latency_s": x, "fit_s": f}

LLM records also carry ``raw_text``, ``n_numbers``, ``hallucinated`` and ``n_duplicates`` (see
`lrworld.tracks.srbench.extract`). `score_records` turns the records of one recommender into metrics.

NN baselines plug in through the small `Recommender` interface (``fit(data, seed)``,
``recommend(users, histories, k)``): `Popularity`, `CFRecommender` (NCF/NGCF/LightGCN from
`lrworld.recsys.cf`) and `SequentialRecommender` (Caser/GRU4Rec from
`lrworld.recsys.sequential`, written on another branch; see the TODO there).
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Callable, Mapping, Protocol, Sequence

import numpy as np

from lrworld.tracks.srbench import metrics
from lrworld.tracks.srbench.data import SplitData
from lrworld.tracks.srbench.extract import hallucination_rate


class Recommender(Protocol):
    def fit(self, data: SplitData, seed: int) -> None: ...

    def recommend(self, users: Sequence[str], histories: Mapping[str, list[str]], k: int) -> list[list[str]]: ...


class _Indexed:
    """Shared id <-> index bookkeeping and masked full ranking over all items."""

    exclude_seen = True

    def _index(self, data: SplitData) -> None:
        self.item_ids = data.item_ids
        self.iix = {x: i for i, x in enumerate(self.item_ids)}
        users = sorted(data.interactions["user_id"].unique())
        self.uix = {u: i for i, u in enumerate(users)}

    def _topk(self, scores: np.ndarray, users: Sequence[str], histories: Mapping[str, list[str]], k: int) -> list[list[str]]:
        scores = np.array(scores, dtype=np.float64, copy=True)
        if self.exclude_seen:
            for r, u in enumerate(users):
                seen = [self.iix[i] for i in histories.get(u, []) if i in self.iix]
                scores[r, seen] = -np.inf
        k = min(k, scores.shape[1])
        part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        out = []
        for r in range(len(users)):
            # ties broken by item position for determinism
            cand = sorted(part[r], key=lambda j: (-scores[r, j], j))
            out.append([self.item_ids[j] for j in cand if np.isfinite(scores[r, j])])
        return out


class Popularity(_Indexed):
    """Most-interacted items of the history first (seen items excluded). Deterministic."""

    def fit(self, data: SplitData, seed: int = 0) -> None:
        self._index(data)
        pop = data.popularity()
        self.scores = np.array([pop[i] for i in self.item_ids], dtype=np.float64)

    def recommend(self, users, histories, k):
        return self._topk(np.tile(self.scores, (len(users), 1)), users, histories, k)


class CFRecommender(_Indexed):
    """NCF / NGCF / LightGCN trained on the history (train + valid) with Adam lr 1e-3."""

    def __init__(self, model: str, epochs: int = 20, lr: float = 1e-3, batch_size: int = 2048, **hp):
        self.model_name, self.epochs, self.lr, self.batch_size, self.hp = model, epochs, lr, batch_size, hp

    def fit(self, data: SplitData, seed: int = 0) -> None:
        from lrworld.recsys import cf

        self._index(data)
        h = data.history
        u = h["user_id"].map(self.uix).to_numpy()
        i = h["item_id"].map(self.iix).to_numpy()
        self.model = cf.build(self.model_name, len(self.uix), len(self.item_ids), u, i, seed=seed, **self.hp)
        self.losses = cf.fit(self.model, u, i, epochs=self.epochs, seed=seed, lr=self.lr, batch_size=self.batch_size)

    def recommend(self, users, histories, k):
        from lrworld.recsys import cf

        s = cf.score(self.model, [self.uix[u] for u in users]).numpy()
        return self._topk(s, users, histories, k)


class SequentialRecommender(_Indexed):
    """Adapter for the compact torch sequential models in `lrworld.recsys.sequential` (Caser,
    GRU4Rec, SASRec): items are 0-based indices, the model pads with index n_items, and
    `score(model, histories)` gives logits over all items for full ranking."""

    def __init__(self, model: str, epochs: int = 20, max_len: int = 50, **hp):
        self.model_name, self.epochs, self.max_len, self.hp = model, epochs, max_len, hp

    def fit(self, data: SplitData, seed: int = 0) -> None:
        from lrworld.recsys import sequential as seq

        self._seq = seq
        self._index(data)
        train_seqs, next_items = [], []
        for hist in data.histories().values():
            ids = [self.iix[i] for i in hist]
            for t in range(1, len(ids)):
                train_seqs.append(ids[max(0, t - self.max_len):t])
                next_items.append(ids[t])
        self.model = seq.make_model(self.model_name, len(self.item_ids), seq_len=self.max_len, **self.hp)
        # the seed's setting: Adam, lr 1e-3; fit re-initialises the weights from `seed`
        seq.fit(self.model, train_seqs, next_items, epochs=self.epochs, seed=seed, lr=1e-3)

    def recommend(self, users, histories, k):
        hs = [[self.iix[i] for i in histories.get(u, [])][-self.max_len:] for u in users]
        return self._topk(np.asarray(self._seq.score(self.model, hs)), users, histories, k)


def make_recommender(name: str, spec: Mapping | None = None) -> Recommender:
    """``name`` from config["srbench"]["baselines"]: popularity, ncf, ngcf, lightgcn, caser, gru4rec, sasrec."""
    spec = dict(spec or {})
    key = name.lower()
    if key == "popularity":
        return Popularity()
    if key in ("ncf", "ngcf", "lightgcn"):
        return CFRecommender(key, **spec)
    if key in ("caser", "gru4rec", "sasrec"):
        return SequentialRecommender(key, **spec)
    raise ValueError(f"srbench.baselines: unknown recommender {name!r}")


def run_recommender(make: Callable[[], Recommender], data: SplitData, k: int, seeds: Sequence[int],
                    users: Sequence[str] | None = None, batch: int = 512) -> list[dict]:
    """Fit a fresh model per seed (run t uses seeds[t]) and recommend K items to every evaluated
    user. ``latency_s`` = the wall time of the batch that produced the list / the batch size."""
    users = list(users) if users is not None else data.eval_users
    hist = data.histories()
    records = []
    for t, seed in enumerate(seeds):
        rec = make()
        t0 = time.perf_counter()
        rec.fit(data, seed)
        fit_s = time.perf_counter() - t0
        for s in range(0, len(users), batch):
            chunk = users[s:s + batch]
            t1 = time.perf_counter()
            lists = rec.recommend(chunk, hist, k)
            per = (time.perf_counter() - t1) / len(chunk)
            records += [{"run": t, "seed": int(seed), "user_id": u, "items": l, "latency_s": per, "fit_s": fit_s}
                        for u, l in zip(chunk, lists)]
    return records


def score_records(records: Sequence[dict], data: SplitData, ks: Sequence[int], overlap: str = "union") -> dict:
    """Metrics of one recommender's records (`metrics.evaluate`), over the users present in run 0;
    adds the hallucination summary when the records come from an LLM."""
    by_run: dict[int, dict[str, list[str]]] = defaultdict(dict)
    for r in records:
        by_run[int(r["run"])][r["user_id"]] = list(r["items"])
    runs_sorted = sorted(by_run)
    users = list(by_run[runs_sorted[0]])
    target = dict(zip(data.eval_users, data.targets))
    missing = [u for u in users if u not in target]
    if missing:
        raise ValueError(f"records name users without a test item, e.g. {missing[:3]}")
    runs = []
    for t in runs_sorted:
        if set(by_run[t]) != set(users):
            raise ValueError(f"run {t} covers other users than run {runs_sorted[0]}")
        runs.append([by_run[t][u] for u in users])
    out = metrics.evaluate(runs, [target[u] for u in users], data.popularity(), data.quality(), ks,
                           [r["latency_s"] for r in records], overlap)
    out["fit_s"] = float(np.mean([r.get("fit_s", 0.0) for r in records])) if records else 0.0
    if records and "raw_text" in records[0]:
        out.update(hallucination_rate(records))
    return out
