"""Produce recommendation lists for SRBench: NN-SR baselines (one training per seed; LLM-SR's T
runs go through the inference stage: lrworld.tracks.srbench.llm).

Every recommender, NN or LLM, yields the same records (one per run and evaluated user)::

    {"run": t, "seed": s, "user_id": u, "items": [best first, <= K_max], "latency_s": x, "fit_s": f}

LLM records also carry ``raw_text``, ``n_numbers``, ``hallucinated`` and ``n_duplicates`` (see
`lrworld.tracks.srbench.extract`). `score_records` turns the records of one recommender into metrics.

NN baselines plug in through the small `Recommender` interface (``fit(data, seed) ->
Training``, ``recommend(users, histories, k)``): `Popularity`, `CFRecommender` (NCF/NGCF/LightGCN
from `lrworld.recsys.cf`) and `SequentialRecommender` (Caser/GRU4Rec/SASRec from
`lrworld.recsys.sequential`). The trained ones are fitted on the ``train`` split and stopped
early on the ``valid`` split (each user's second-to-last item, never the test item): see
`validation`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Callable, Mapping, Protocol, Sequence

import numpy as np

from lrworld.recsys.registry import recommenders
from lrworld.recsys.training import Training
from lrworld.tracks.srbench import metrics
from lrworld.tracks.srbench.data import SplitData
from lrworld.tracks.srbench.extract import hallucination_rate

# Early-stopping criterion of every trained baseline: NDCG@10 of the validation item, ranked over
# all items the user has not met in training (RecBole's full-sort validation; K as its usual 10).
VALID_K = 10
VALID_METRIC = f"ndcg@{VALID_K}"


class Recommender(Protocol):
    def fit(self, data: SplitData, seed: int, log: Callable[[str], None] | None = None) -> Training: ...

    def recommend(self, users: Sequence[str], histories: Mapping[str, list[str]], k: int) -> list[list[str]]: ...


def validation(rec: Recommender, data: SplitData) -> Callable[[], float]:
    """The early-stopping score of ``rec`` on ``data``: NDCG@10 of each user's validation item,
    the model seeing the user's training items only (and masking them from the ranking)."""
    valid = data.valid
    users = valid["user_id"].tolist()
    targets = [{i} for i in valid["item_id"]]
    hist = data.train_histories()
    return lambda: metrics.ndcg_at_k(rec.recommend(users, hist, VALID_K), targets, VALID_K)


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
    """Most-interacted items of the history first (seen items excluded). Deterministic, nothing
    to train (a zero-epoch Training)."""

    def __init__(self, name: str = "popularity"):
        self.name = name

    def fit(self, data: SplitData, seed: int = 0, log=None) -> Training:
        self._index(data)
        pop = data.popularity()
        self.scores = np.array([pop[i] for i in self.item_ids], dtype=np.float64)
        return Training(max_epochs=0, patience=None, valid_metric=None)

    def recommend(self, users, histories, k):
        return self._topk(np.tile(self.scores, (len(users), 1)), users, histories, k)


class CFRecommender(_Indexed):
    """NCF / NGCF / LightGCN fitted on the train split (Adam), stopped early on the valid split.
    ``hp``: the architecture (dim, n_layers, mlp) and the loss settings (n_neg for NCF, reg for
    the graph models), as `srbench.baselines.<name>` gives them."""

    LOSS_KEYS = ("n_neg", "reg")

    def __init__(self, model: str, max_epochs: int, patience: int, lr: float, batch_size: int, **hp):
        self.model_name, self.max_epochs, self.patience, self.lr, self.batch_size = model, max_epochs, patience, lr, batch_size
        self.loss_hp = {k: hp.pop(k) for k in self.LOSS_KEYS if k in hp}
        self.hp = hp

    def fit(self, data: SplitData, seed: int = 0, log=None) -> Training:
        from lrworld.recsys import cf

        self._index(data)
        t = data.train
        u = t["user_id"].map(self.uix).to_numpy()
        i = t["item_id"].map(self.iix).to_numpy()
        self.model = cf.build(self.model_name, len(self.uix), len(self.item_ids), u, i, seed=seed, **self.hp)
        return cf.fit(self.model, u, i, max_epochs=self.max_epochs, seed=seed, lr=self.lr, batch_size=self.batch_size,
                      validate=validation(self, data), patience=self.patience, valid_metric=VALID_METRIC, log=log,
                      **self.loss_hp)

    def recommend(self, users, histories, k):
        from lrworld.recsys import cf

        s = cf.score(self.model, [self.uix[u] for u in users]).numpy()
        return self._topk(s, users, histories, k)


class SequentialRecommender(_Indexed):
    """Caser / GRU4Rec / SASRec (`lrworld.recsys.sequential`): every prefix of a user's training
    items (the last ``max_len``) predicts the next one; stopped early on the valid split. Items
    are 0-based indices, the model pads with index n_items, and `score(model, histories)` gives
    logits over all items for full ranking. ``arch``: hidden, dropout and the model's own sizes."""

    def __init__(self, model: str, max_epochs: int, patience: int, lr: float, batch_size: int, max_len: int, **arch):
        self.model_name, self.max_epochs, self.patience, self.lr = model, max_epochs, patience, lr
        self.batch_size, self.max_len, self.arch = batch_size, max_len, arch

    def fit(self, data: SplitData, seed: int = 0, log=None) -> Training:
        from lrworld.recsys import sequential as seq

        self._seq = seq
        self._index(data)
        train_seqs, next_items = [], []
        for hist in data.train_histories().values():
            ids = [self.iix[i] for i in hist]
            for t in range(1, len(ids)):
                train_seqs.append(ids[max(0, t - self.max_len):t])
                next_items.append(ids[t])
        self.model = seq.make_model(self.model_name, len(self.item_ids), seq_len=self.max_len, **self.arch)
        # fit re-initialises the weights from `seed`
        return seq.fit(self.model, train_seqs, next_items, max_epochs=self.max_epochs, seed=seed, lr=self.lr,
                       batch_size=self.batch_size, validate=validation(self, data), patience=self.patience,
                       valid_metric=VALID_METRIC, log=log)

    def recommend(self, users, histories, k):
        hs = [[self.iix[i] for i in histories.get(u, [])][-self.max_len:] for u in users]
        return self._topk(np.asarray(self._seq.score(self.model, hs)), users, histories, k)


def make_recommender(name: str, spec: Mapping) -> Recommender:
    """``name`` and its settings from config["srbench"]["baselines"] (schema defaults filled), by
    the recommender registry (lrworld/recsys/registry.py)."""
    reg = recommenders()
    if name.lower() not in reg:
        raise ValueError(f"srbench.baselines: unknown recommender {name!r}; known: {reg.names()}")
    return reg.get(name.lower()).build(dict(spec))


def run_baseline(rec: Recommender, data: SplitData, k: int, seed: int, batch: int = 512,
                 log: Callable[[str], None] | None = None) -> tuple[list[dict], dict]:
    """Fit ``rec`` with ``seed`` and recommend K items to every evaluated user (all of them: a
    user sample is applied when scoring). Returns the records (``run`` = ``seed``) and the
    training record (epochs run, best epoch, validation curve, ``fit_s``). ``latency_s`` = the
    wall time of the batch that produced the list / the batch size."""
    users = data.eval_users
    hist = data.histories()
    t0 = time.perf_counter()
    training = rec.fit(data, seed, log)
    fit_s = time.perf_counter() - t0
    records = []
    for s in range(0, len(users), batch):
        chunk = users[s:s + batch]
        t1 = time.perf_counter()
        lists = rec.recommend(chunk, hist, k)
        per = (time.perf_counter() - t1) / len(chunk)
        records += [{"run": int(seed), "seed": int(seed), "user_id": u, "items": l, "latency_s": per, "fit_s": fit_s}
                    for u, l in zip(chunk, lists)]
    return records, {**training.as_dict(), "seed": int(seed), "fit_s": round(fit_s, 2)}


def score_records(records: Sequence[dict], data: SplitData, ks: Sequence[int], overlap: str = "union",
                  users: Sequence[str] | None = None) -> dict:
    """Metrics of one recommender's records (`metrics.evaluate`) over ``users`` (default: the
    users present in run 0; every run must cover them); adds the hallucination summary when the
    records come from an LLM."""
    if users is not None:
        keep = set(users)
        records = [r for r in records if r["user_id"] in keep]
    by_run: dict[int, dict[str, list[str]]] = defaultdict(dict)
    for r in records:
        by_run[int(r["run"])][r["user_id"]] = list(r["items"])
    if not by_run:
        raise ValueError("no records for the users to score")
    runs_sorted = sorted(by_run)
    users = list(users) if users is not None else list(by_run[runs_sorted[0]])
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
    out["runs"] = runs_sorted
    out["fit_s"] = float(np.mean([r.get("fit_s", 0.0) for r in records])) if records else 0.0
    if records and "raw_text" in records[0]:
        out.update(hallucination_rate(records))
    return out
