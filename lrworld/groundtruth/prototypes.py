"""Prototype targets over NeuMF embeddings (neu_item2users, neu_user2items).

Semantics (docs/groundtruth.md):
- k-means (scikit-learn, k clusters, seeded) over the item (resp. user) GMF embeddings.
- targets: the members of each cluster nearest its centroid (Euclidean), taken round-robin over
  clusters (nearest of every cluster first, then second nearest, ...) until n_targets.
- for a target item (resp. user), every user (resp. item) is scored by cosine of GMF embeddings.
  The pool leaves out the target's known interactions first: for a user target the items of its
  whole history, for an item target the users who interacted with it (issue 14: a candidate that
  already met the target reads as a correct answer, and a negative from the history is not wrong).
  positives = the n_positives highest cosines; the answer is the highest; negatives are drawn
  uniformly without replacement from the pool minus the positives (item candidates: never one whose
  prompt text reads like the answer's or another negative's). The answer is therefore the argmax of
  cosine among the candidates (ties between float cosines do not occur in practice).
- seeds: k-means and each target's negatives draw from streams named by the dataset, the measure
  (and the target), rng_for(seed, dataset, measure, ...).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lrworld.groundtruth.neumf import embedding_matrix
from lrworld.questions.negatives import draw_distinct
from lrworld.core.seeding import rng_for

PROTO_COLUMNS = ["measure", "cluster", "target", "centroid_distance", "candidate", "cosine",
                 "is_answer", "rank"]
DIRECTIONS = {"neu_item2users": ("item", "user"), "neu_user2items": ("user", "item")}


def _unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(n > 0, n, 1.0)


def kmeans_targets(X: np.ndarray, k: int, n_targets: int, seed: int, threads: int = 1):
    """Return list of (row, cluster, distance) in round-robin nearest-to-centroid order."""
    from sklearn.cluster import KMeans

    from threadpoolctl import threadpool_limits

    k = min(k, len(X))
    with threadpool_limits(threads):  # OpenMP spin-waits crawl on a shared, oversubscribed machine
        km = KMeans(n_clusters=k, random_state=seed, n_init=3).fit(X)
    d = np.linalg.norm(X - km.cluster_centers_[km.labels_], axis=1)
    per = []
    for c in range(k):
        members = np.flatnonzero(km.labels_ == c)
        per.append(members[np.lexsort((members, d[members]))])
    out = []
    depth = 0
    while len(out) < n_targets and any(depth < len(p) for p in per):
        for c in range(k):
            if depth < len(per[c]) and len(out) < n_targets:
                r = per[c][depth]
                out.append((int(r), c, float(d[r])))
        depth += 1
    return out


def prototype_candidates(embeddings: pd.DataFrame, interactions: pd.DataFrame, measure: str,
                         n_targets: int, k: int = 10, seed: int = 0, n_candidates: int = 10,
                         n_positives: int = 10, column: str = "gmf", threads: int = 1, *, dataset: str,
                         display: dict[str, str] | None = None):
    """Return (table, stats): PROTO_COLUMNS, answer row first per target, targets in visit order.
    `display` (item id -> display key) keeps look-alike item negatives out."""
    tkind, ckind = DIRECTIONS[measure]
    t_ids, T = embedding_matrix(embeddings, tkind, column)
    c_ids, C = embedding_matrix(embeddings, ckind, column)
    Cu = _unit(C)
    c_pos = {cid: j for j, cid in enumerate(c_ids)}
    kmeans_seed = int(rng_for(seed, dataset, measure, "kmeans").integers(2**31))
    targets = kmeans_targets(T, k, n_targets, kmeans_seed, threads)
    # only the targets' interactions: never a per-entity set of the whole data
    tcol, ccol = ("user_id", "item_id") if tkind == "user" else ("item_id", "user_id")
    sub = interactions[interactions[tcol].astype(str).isin({str(t_ids[r]) for r, _, _ in targets})]
    known = {str(t): set(g.astype(str)) for t, g in sub.groupby(tcol, sort=False)[ccol]}
    key = None
    if display is not None and ckind == "item":
        def key(c):
            return display.get(str(c_ids[c]), str(c_ids[c]))
    cols = {c: [] for c in PROTO_COLUMNS}
    skipped = rejected = 0
    for r, cl, dist in targets:
        cos = Cu @ _unit(T[r:r + 1])[0]
        pool = np.arange(len(c_ids))
        own = known.get(str(t_ids[r]), set())
        pool = pool[~np.isin(pool, [c_pos[i] for i in own if i in c_pos])]
        if len(pool) < n_positives + n_candidates - 1:
            skipped += 1
            continue
        ranked = pool[np.lexsort((pool, -cos[pool]))]
        pos, rest = ranked[:n_positives], ranked[n_positives:]
        draw = rng_for(seed, dataset, measure, "negatives", str(t_ids[r]))
        negs, rej = draw_distinct(rest, n_candidates - 1, draw, key, [key(pos[0])] if key else ())
        rejected += rej
        if len(negs) < n_candidates - 1:
            skipped += 1
            continue
        cands = np.r_[pos[0], np.asarray(negs, dtype=np.int64)]
        rank_of = {int(c): i for i, c in enumerate(ranked)}
        for j, c in enumerate(cands):
            cols["measure"].append(measure)
            cols["cluster"].append(cl)
            cols["target"].append(str(t_ids[r]))
            cols["centroid_distance"].append(dist)
            cols["candidate"].append(str(c_ids[c]))
            cols["cosine"].append(float(cos[c]))
            cols["is_answer"].append(j == 0)
            cols["rank"].append(rank_of[int(c)])
    table = pd.DataFrame(cols).astype({"cluster": "int64", "centroid_distance": "float64",
                                       "cosine": "float64", "is_answer": bool, "rank": "int64"})
    stats = {"measure": measure, "k": k, "n_targets": int(table["target"].nunique()) if len(table) else 0,
             "skipped": skipped, "n_positives": n_positives, "embedding": column,
             "negatives_rejected_same_text": rejected}
    return table, stats


def all_prototypes(embeddings, interactions, n_targets, k=10, seed=0, n_positives=10, column="gmf", threads=1, *,
                   dataset: str, display: dict[str, str] | None = None):
    parts, stats = [], {}
    for m in DIRECTIONS:
        t, s = prototype_candidates(embeddings, interactions, m, n_targets, k, seed, n_positives=n_positives,
                                    column=column, threads=threads, dataset=dataset, display=display)
        parts.append(t)
        stats[m] = s
    return pd.concat(parts, ignore_index=True), stats
