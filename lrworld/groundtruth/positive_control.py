"""The positive control: an answerer that has the knowledge a measure claims, computed apart from
the gold's own computation, must find the gold well above chance; a measure on which it does not
is "not answerable from the data" (the table, the cards, the report and the release say so).

Per measure, by how its gold is made (its registry entry, lrworld/questions/measures.py):

- association rules: the confidence of `antecedents -> option` over the transactions of a random
  half of the users (groundtruth/transactions.py, the window the rules were mined with);
- memory similarity: the cosine of one-hot sets over a random half of the users (items) or of the
  items (users);
- neural (NeuMF): another recommender family, item-kNN over every interaction (an item option:
  its mean cosine to the target user's items; a user option: the target item's mean cosine to the
  user's items), and, where the audit has the weights, the model's own predicted preference;
- a user's next item or a value of it (knowledge measures): item-kNN over every user but the
  question's (an item option by its mean cosine to the shown history; a value by how many history
  items carry it, ties by the best of its items' cosines), and, for a field two sources cover,
  whether every covering source lists the gold.

Memory and rule golds are also re-made under `BOOTSTRAP` resamples of the users (items for
user-user similarity): the share of (question, resample) pairs whose gold stays the strict best
option (`stability`). Every draw is named (`rng_for(seed, dataset, measure, "positive_control", ...)`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from lrworld.core.seeding import rng_for
from lrworld.groundtruth.transactions import binary_matrix, index_interactions, transaction_matrix
from lrworld.questions import measures
from lrworld.questions.learned import wilson

BOOTSTRAP = 20


class _Data:
    """The interactions as a users x items binary matrix, with id -> row/column maps."""

    def __init__(self, interactions: pd.DataFrame):
        self.idx = index_interactions(interactions)
        self.B = binary_matrix(self.idx).tocsr().astype(np.float64)
        self.user = {str(u): i for i, u in enumerate(self.idx.user_ids)}
        self.item = {str(i): j for j, i in enumerate(self.idx.item_ids)}

    def half(self, seed: int, name: str, axis: str) -> np.ndarray:
        """0/1 per user (or item): a seeded split in two halves."""
        n = self.B.shape[0] if axis == "user" else self.B.shape[1]
        return rng_for(seed, name, "positive_control", "halves", axis).permutation(n) % 2


def _cos(X: sp.csr_matrix, a: np.ndarray, b: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """(len(a), len(b)) cosine between columns a and b of X (rows weighted by `w`)."""
    Xa, Xb = X[:, a], X[:, b]
    if w is not None:
        Xa = sp.diags(w) @ Xa
    num = (Xa.T @ Xb).toarray()
    na = np.sqrt(np.asarray(Xa.multiply(X[:, a]).sum(axis=0)).reshape(-1))
    nb = np.sqrt(np.asarray((Xb.multiply(Xb) if w is None else (sp.diags(w) @ Xb).multiply(Xb)).sum(axis=0)).reshape(-1))
    den = na[:, None] * nb[None, :]
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _pick(scores: np.ndarray, rng: np.random.Generator) -> int:
    best = np.flatnonzero(scores == scores.max())
    return int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])


def _strict_best(scores: np.ndarray, a: int) -> bool:
    return bool(scores[a] > np.delete(scores, a).max())


def _result(method: str, hits: list[bool], chance: float, **extra) -> dict:
    n, k = len(hits), int(sum(hits))
    lo, hi = wilson(k, n) if n else (0.0, 1.0)
    score = k / n if n else 0.0
    return {"method": method, "correct": k, "n": n, "score": round(score, 4), "ci_low": round(lo, 4),
            "ci_high": round(hi, 4), "chance": round(chance, 4),
            # at chance (its interval reaches down to chance): not answerable from the data
            "answerable": bool(n and lo > chance), **extra}


def _chance(qs: list[dict]) -> float:
    return float(np.mean([1 / len(q["candidates"]) for q in qs])) if qs else 0.0


def _memory(data: _Data, qs: list[dict], gold: measures.Gold, seed: int, name: str) -> dict:
    """The cosine over half the users (item targets) or half the items (user targets); the golds'
    stability under bootstrap resamples of the same axis."""
    by_item = gold.target == "item"
    X = data.B if by_item else data.B.T.tocsr()
    ids = data.item if by_item else data.user
    keep = data.half(seed, name, "user" if by_item else "item") == 0
    half = sp.diags(keep.astype(np.float64)) @ X
    rng = rng_for(seed, name, "positive_control", "ties")
    boot = rng_for(seed, name, "positive_control", "bootstrap")
    weights = [np.bincount(boot.integers(X.shape[0], size=X.shape[0]), minlength=X.shape[0]).astype(np.float64)
               for _ in range(BOOTSTRAP)]
    hits, stable = [], []
    for q in qs:
        t = ids.get(str(q["context"][f"target_{gold.target}"]))
        cands = [ids.get(str(c)) for c in q["candidates"]]
        if t is None or None in cands:
            continue
        c = np.asarray(cands)
        hits.append(_pick(_cos(half, np.asarray([t]), c)[0], rng) == q["answer_index"])
        stable += [_strict_best(_cos(X, np.asarray([t]), c, w)[0], q["answer_index"]) for w in weights]
    what = "users" if by_item else "items"
    return _result(f"cosine over a random half of the {what}", hits, _chance(qs),
                   stability=round(float(np.mean(stable)), 4) if stable else None,
                   stability_over=f"{BOOTSTRAP} bootstrap resamples of the {what}")


def _rules(interactions: pd.DataFrame, qs: list[dict], seed: int, name: str, window: int | None) -> dict:
    """Each option's confidence antecedents -> option over half the users' transactions; the golds'
    stability under bootstrap resamples of the users."""
    X, item_ids, tx_users = transaction_matrix(interactions, window)
    X = X.tocsc().astype(np.float64)
    col = {str(i): j for j, i in enumerate(item_ids)}
    users = sorted({str(u) for u in tx_users})
    pos = {u: i for i, u in enumerate(users)}
    of_tx = np.asarray([pos[str(u)] for u in tx_users], dtype=np.int64)
    half = rng_for(seed, name, "positive_control", "halves", "user").permutation(len(users)) % 2
    rng = rng_for(seed, name, "positive_control", "ties")
    boot = rng_for(seed, name, "positive_control", "bootstrap")
    weights = [np.bincount(boot.integers(len(users), size=len(users)), minlength=len(users))[of_tx].astype(float)
               for _ in range(BOOTSTRAP)]
    hits, stable = [], []
    for q in qs:
        a = [col.get(str(i)) for i in q["context"]["antecedents"]]
        c = [col.get(str(i)) for i in q["candidates"]]
        if None in a or None in c:
            continue
        has_a = np.asarray(X[:, a].min(axis=1).todense()).reshape(-1)
        both = X[:, c].multiply(has_a[:, None]).tocsc()

        def conf(w):
            base = float(w @ has_a)
            return np.asarray(w @ both).reshape(-1) / base if base else np.zeros(len(c))
        hits.append(_pick(conf((half[of_tx] == 0).astype(float)), rng) == q["answer_index"])
        stable += [_strict_best(conf(w), q["answer_index"]) for w in weights]
    return _result("confidence over a random half of the users' transactions", hits, _chance(qs),
                   stability=round(float(np.mean(stable)), 4) if stable else None,
                   stability_over=f"{BOOTSTRAP} bootstrap resamples of the users")


def _knn_scores(B: sp.csr_matrix, items: list[int], cands: list[int]) -> np.ndarray:
    """Per candidate item, its mean cosine to `items` (item-kNN)."""
    if not items:
        return np.zeros(len(cands))
    return _cos(B, np.asarray(cands), np.asarray(items)).mean(axis=1)


def _neural(data: _Data, qs: list[dict], gold: measures.Gold, seed: int, name: str, preferences=None) -> dict:
    """Item-kNN over every interaction (another family than NeuMF), and the model's own predicted
    preference where the audit has the weights."""
    rng = rng_for(seed, name, "positive_control", "ties")
    user_items = {u: data.B[i].indices.tolist() for u, i in data.user.items()}
    hits, own = [], []
    for q in qs:
        target = str(q["context"][f"target_{gold.target}"])
        cands = [str(c) for c in q["candidates"]]
        if gold.target == "user":
            if target not in data.user or any(c not in data.item for c in cands):
                continue
            s = _knn_scores(data.B, user_items[target], [data.item[c] for c in cands])
        else:
            if target not in data.item or any(c not in data.user for c in cands):
                continue
            s = np.asarray([_knn_scores(data.B, user_items[c], [data.item[target]])[0] for c in cands])
        hits.append(_pick(s, rng) == q["answer_index"])
        if preferences is not None:
            try:
                p = preferences.scores(gold.target, target, cands).sum(axis=0)
                own.append(_pick(p, rng) == q["answer_index"])
            except KeyError:
                pass
    extra = {}
    if own:
        extra["model_prediction"] = _result("the trained NeuMF's own predicted preference, summed over its trainings",
                                            own, _chance(qs))
    return _result("item-kNN over every interaction (another recommender family)", hits, _chance(qs), **extra)


def _knn_without(B: sp.csr_matrix, u: int, items: list[int], cands: list[int]) -> np.ndarray:
    """Per candidate item, its mean cosine to `items` over every user but `u` (item-kNN left one user out)."""
    a, b = np.asarray(cands), np.asarray(items)
    row = np.asarray(B[u].todense()).reshape(-1)
    num = (B[:, a].T @ B[:, b]).toarray() - np.outer(row[a], row[b])
    deg = np.asarray(B.sum(axis=0)).reshape(-1) - row
    den = np.sqrt(np.outer(deg[a], deg[b]))
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0).mean(axis=1)


def _next_item(data: _Data, qs: list[dict], items: pd.DataFrame, field: str | None, seed: int, name: str) -> dict:
    """Item-kNN over every user but the question's: an item option by its mean cosine to the shown
    history; a value option by how many history items carry it, ties by the best of its items'."""
    carriers: dict[str, list[int]] = {}
    if field and field in items.columns:
        from lrworld.core.cells import strings

        for i, cell in zip(items["item_id"].astype(str), items[field]):
            if i in data.item:
                for v in dict.fromkeys(strings(cell)):
                    carriers.setdefault(v, []).append(data.item[i])
    rng = rng_for(seed, name, "positive_control", "ties")
    hits = []
    for q in qs:
        u = data.user.get(str(q.get("user_id")))
        hist = [data.item[h] for h in map(str, q.get("history") or []) if h in data.item]
        if u is None or not hist:
            continue
        if q["candidate_kind"] == "value":
            pools = [carriers.get(str(c), []) for c in q["candidates"]]
            if not all(pools):
                continue
            # the facts of the history first (how many of its items carry the value), then behaviour
            shown = [sum(h in set(p) for h in hist) for p in pools]
            cf = np.asarray([_knn_without(data.B, u, hist, p).max() for p in pools])
            s = np.asarray(shown, dtype=float) + cf / (1.0 + cf.max())
        else:
            cands = [data.item.get(str(c)) for c in q["candidates"]]
            if None in cands:
                continue
            s = _knn_without(data.B, u, hist, cands)
        hits.append(_pick(s, rng) == q["answer_index"])
    what = "values of the history, then item-kNN" if qs[0]["candidate_kind"] == "value" else "item-kNN"
    return _result(f"{what} over every user but the question's (the next item from behaviour)", hits, _chance(qs))


def _second_source(qs: list[dict], facts: pd.DataFrame | None, field: str | None) -> dict | None:
    """Over the questions whose item two sources or more cover (the ingest's facts table): the share
    whose gold every covering source lists (None where no question's item has two)."""
    if facts is None or not field or "field" not in facts or not (facts["field"] == field).any():
        return None
    from lrworld.core.cells import strings
    from lrworld.questions.enforced import value_key

    key = value_key(field)
    f = facts[facts["field"] == field]
    covering: dict[str, set] = {}
    listed: dict[tuple[str, str], set] = {}
    for i, v, srcs in zip(f["item_id"].astype(str), f["value"], f["sources"]):
        names = set(strings(srcs)) if not isinstance(srcs, str) else {s for s in srcs.split("+") if s}
        covering.setdefault(i, set()).update(names)
        listed.setdefault((i, key(v)), set()).update(names)
    hits = []
    for q in qs:
        item = str(q.get("target_item"))
        if len(covering.get(item, ())) < 2:
            continue
        gold = key(q["candidates"][q["answer_index"]])
        hits.append(listed.get((item, gold), set()) >= covering[item])
    if not hits:
        return None
    return _result("every source covering the item lists the gold", hits, _chance(qs))


def positive_controls(dataset: str, domain: str, questions: dict[str, list[dict]], interactions: pd.DataFrame,
                      items: pd.DataFrame, facts: pd.DataFrame | None = None, preferences=None,
                      seed: int = 0, window: int | None = 20) -> dict[str, dict]:
    """measure -> its positive control (`_result`'s fields: method, score, interval, chance,
    answerable; stability for memory and rule golds; the model's own prediction for neural ones;
    second_source for knowledge fields two sources cover)."""
    data = _Data(interactions)
    out = {}
    for m, qs in sorted(questions.items()):
        if not qs:
            continue
        measure = measures.get(domain, m)
        name = f"{dataset}/{m}"
        gold = measure.gold
        if gold is not None and gold.recipe == measures.RULE:
            out[m] = _rules(interactions, qs, seed, name, window)
        elif gold is not None and gold.recompute == measures.INTERACTIONS:
            out[m] = _memory(data, qs, gold, seed, name)
        elif gold is not None and gold.recompute == measures.EMBEDDINGS:
            out[m] = _neural(data, qs, gold, seed, name, preferences)
        elif qs[0].get("user_id") is not None:
            out[m] = _next_item(data, qs, items, measure.field, seed, name)
            if (second := _second_source(qs, facts, measure.field)) is not None:
                out[m]["second_source"] = second
    return out
