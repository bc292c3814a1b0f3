"""Prototype targets over NeuMF embeddings (neu_item2users, neu_user2items), over several trainings.

Semantics (docs/groundtruth.md):
- the embeddings hold `seeds` trainings (lrworld.groundtruth.neumf.train_neumf_seeds). k-means
  (scikit-learn, k clusters, seeded, run to a fixed point: tol 0) over the item (resp. user) GMF
  embeddings of every training side by side (each unit-normalised, so each counts the same).
- targets: the members of each cluster nearest its centroid (Euclidean), taken round-robin over
  clusters (nearest of every cluster first, then second nearest, ...); at most 20 x n_targets are
  visited, until n_targets are kept.
- for a target item (resp. user), every user (resp. item) is scored by cosine of GMF embeddings
  (float64), under each training. The pool leaves out the target's known interactions first (for a
  user target the items of its whole history, for an item target the users who interacted with it).
- the gold is the consensus best: the highest mean cosine over the trainings (`consensus_score`),
  which must lead the pool's consensus runner-up by at least `margin` (else status `margin`), so
  noise below margin/2 per cosine (thread count, device: ~1e-5) cannot change which entity it is.
  Independent trainings rarely share the pool's argmax (ML-100K, 3 trainings of 5 epochs: 7 % of
  (target, training) pairs), so the rule is on the question's options, what the answer depends on.
- negatives: the first 9 entities, in a permutation of all entities drawn per target, that are
  in the pool and outside the consensus's and every training's n_positives highest (item
  candidates: never one whose prompt text reads like the answer's or another negative's); an entity
  crossing a top-n_positives cut elsewhere changes the draw only if it comes before the 9th pick.
- the question is kept only when, under every training, the gold beats each shown negative (else
  `seed_disagreement`) by at least `margin` of cosine (else `margin`): the gold is the argmax of the
  options under every training, by the margin. A dropped target keeps one row (its consensus best)
  for the report. With one training this is the single training's argmax of the pool by the margin.
- seeds: k-means and each target's negatives draw from streams named by the dataset, the measure
  (and the target), rng_for(seed, dataset, measure, ...).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from lrworld.core.seeding import rng_for
from lrworld.groundtruth.eligibility import eligible as eligible_by_count, training_counts
from lrworld.groundtruth.neumf import embedding_matrix, n_trainings
from lrworld.questions import enforced, measures
from lrworld.questions.distractors import Debias, GoldCap, Ranks, matched
from lrworld.questions.measures import HIT10
from lrworld.questions.negatives import first_eligible

PROTO_COLUMNS = ["measure", "cluster", "target", "centroid_distance", "candidate", "cosine",
                 "is_answer", "rank", "seed_cosines", "seeds_agreeing", "seeds_pool_argmax", "margin",
                 "consensus_margin", "min_margin", "status"]
ARTIFACT = "prototypes"
KEPT, SEED_DISAGREEMENT, MARGIN = "kept", "seed_disagreement", "margin"
# questions.max_gold_share and questions.distractors: matched (lrworld/questions/distractors.py)
GOLD_SHARE, NO_MATCH = "gold_share", "no_matched_distractors"


def _unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(n > 0, n, 1.0)


def consensus_score(cos: np.ndarray) -> np.ndarray:
    """(trainings, entities) cosines -> the consensus score per entity: the mean over the trainings
    (the mean, not the worst cosine, which keeps fewer targets: one training's outlier would veto a
    target the others agree on)."""
    return cos.mean(axis=0)


def kmeans_targets(X: np.ndarray, k: int, n_targets: int, seed: int, threads: int = 1):
    """Return list of (row, cluster, distance) in round-robin nearest-to-centroid order."""
    from sklearn.cluster import KMeans

    from threadpoolctl import threadpool_limits

    k = min(k, len(X))
    with threadpool_limits(threads):  # OpenMP spin-waits crawl on a shared, oversubscribed machine
        # tol 0: run until no label moves, so a tiny shift of X cannot stop it an iteration earlier
        km = KMeans(n_clusters=k, random_state=seed, n_init=3, tol=0).fit(X)
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


def _matrices(embeddings: pd.DataFrame, kind: str, column: str, n: int):
    ids, mats = None, []
    for j in range(n):
        i, m = embedding_matrix(embeddings, kind, column, seed=j)
        if ids is not None and not np.array_equal(ids, i):
            raise ValueError(f"embeddings: training {j} has other {kind} ids than training 0")
        ids = i
        mats.append(_unit(m))
    return ids, mats


def prototype_candidates(embeddings: pd.DataFrame, interactions: pd.DataFrame, measure: str,
                         n_targets: int, k: int = 10, seed: int = 0, n_candidates: int = 10,
                         n_positives: int = 10, column: str = "gmf", threads: int = 1, *, dataset: str,
                         display: dict[str, str] | None = None, margin: float = 0.0,
                         max_visits: int | None = None, min_interactions: int = 1,
                         debias: Debias | None = None):
    """Return (table, stats): PROTO_COLUMNS, answer row first per kept target, targets in visit
    order (a dropped target: one row, its status says why). `display` (item id -> display key)
    keeps look-alike item negatives out: of the gold, of each other and of the target user's history.
    An entity with fewer than `min_interactions` training interactions is never a target, a gold or
    a negative (lrworld/groundtruth/eligibility.py); the targets so passed over are counted
    (`dropped_few_interactions`). `debias`: matched negatives by the candidates' interactions and
    the gold-share cap (a dropped target's status says which)."""
    debias = debias or Debias()
    # the direction (target kind -> candidate kind) is the measure's registry entry's
    gold = measures.by_id(measure).gold
    tkind, ckind = gold.target, gold.candidate
    n_seeds = n_trainings(embeddings)
    t_ids, Ts = _matrices(embeddings, tkind, column, n_seeds)
    c_ids, Cs = _matrices(embeddings, ckind, column, n_seeds)
    c_pos = {cid: j for j, cid in enumerate(c_ids)}
    kmeans_seed = int(rng_for(seed, dataset, measure, "kmeans").integers(2**31))
    features = np.hstack(Ts) / np.sqrt(n_seeds)
    if max_visits is None:
        max_visits = 20 * n_targets
    targets = kmeans_targets(features, k, max_visits, kmeans_seed, threads)
    counts = training_counts(interactions)
    cap = GoldCap(debias.cap(n_targets, HIT10))
    ranks = None
    if debias.matched:  # the counts a popularity answerer reads: every interaction
        ranks = Ranks(interactions[f"{ckind}_id"].astype(str).value_counts().to_dict(), [str(c) for c in c_ids])
    # item options are shown by title: their text length is matched too (the display key's)
    lengths = (Ranks({str(c): len(display.get(str(c), "")) for c in c_ids}, [str(c) for c in c_ids])
               if ranks is not None and display is not None and ckind == "item" else None)
    fallbacks = Counter()
    trained_c = eligible_by_count(c_ids, counts[ckind], min_interactions)
    trained_t = eligible_by_count(t_ids, counts[tkind], min_interactions)
    # only the targets' interactions: never a per-entity set of the whole data
    tcol, ccol = ("user_id", "item_id") if tkind == "user" else ("item_id", "user_id")
    sub = interactions[interactions[tcol].astype(str).isin({str(t_ids[r]) for r, _, _ in targets})]
    known = {str(t): set(g.astype(str)) for t, g in sub.groupby(tcol, sort=False)[ccol]}
    key = None
    if display is not None and ckind == "item":
        def key(c):
            return enforced.work_key(c_ids[c], display)
    cols = {c: [] for c in PROTO_COLUMNS}

    def row(cl, target, dist, cand, cos, is_answer, rank, agreeing, on_top, mg, lead, status):
        for name, v in zip(PROTO_COLUMNS, (measure, cl, target, dist, str(c_ids[cand]), float(cos.mean(axis=0)[cand]),
                                           is_answer, rank, [float(x) for x in cos[:, cand]], agreeing, on_top, mg,
                                           lead, margin, status)):
            cols[name].append(v)

    skipped = rejected = kept = visited = few = 0
    counts = {SEED_DISAGREEMENT: 0, MARGIN: 0, GOLD_SHARE: 0, NO_MATCH: 0}
    agreeing_total = pool_top_total = 0
    for r, cl, dist in targets:
        if kept >= n_targets:
            break
        if not trained_t[r]:
            few += 1
            continue
        cos = np.stack([C @ T[r] for C, T in zip(Cs, Ts)])  # (trainings, entities), float64
        in_pool = trained_c.copy()
        in_pool[[c_pos[i] for i in known.get(str(t_ids[r]), set()) if i in c_pos]] = False
        pool = np.flatnonzero(in_pool)
        if len(pool) < n_positives + n_candidates - 1:
            skipped += 1
            continue
        score = consensus_score(cos)
        ranked = pool[np.lexsort((pool, -score[pool]))]
        gold = int(ranked[0])
        lead = float(score[gold] - score[ranked[1]])  # over the pool's consensus runner-up
        # never a negative: a positive of the consensus or of any one training
        eligible = in_pool.copy()
        eligible[ranked[:n_positives]] = False
        for c in cos:
            eligible[pool[np.lexsort((pool, -c[pool]))][:n_positives]] = False
        target = str(t_ids[r])
        if cap.full(str(c_ids[gold])):
            counts[GOLD_SHARE] += 1
            row(cl, target, dist, gold, cos, True, 0, 0, 0, lead, lead, GOLD_SHARE)
            continue
        order = rng_for(seed, dataset, measure, "negatives", target).permutation(len(c_ids))
        # an item reading like the gold, an earlier pick or an item the target met is taken (enforced.Met)
        taken = [key(gold), *enforced.Met(known.get(target, ()), display).by_work] if key else ()
        if ranks is not None:
            drawn = matched([str(c_ids[i]) for i in order if eligible[i]], str(c_ids[gold]), n_candidates - 1, ranks,
                            rng_for(seed, dataset, measure, "matched", target),
                            key=(lambda c: key(c_pos[c])) if key else None, taken=taken, lengths=lengths,
                            fallbacks=fallbacks)
            if drawn is None:
                counts[NO_MATCH] += 1
                row(cl, target, dist, gold, cos, True, 0, 0, 0, lead, lead, NO_MATCH)
                continue
            negs, rej = [c_pos[c] for c in drawn[0]], drawn[1]
        else:
            negs, rej = first_eligible(order, eligible, n_candidates - 1, key, taken)
        if len(negs) < n_candidates - 1:
            skipped += 1
            continue
        visited += 1
        gaps = cos[:, gold] - cos[:, negs].max(axis=1)  # per training: gold over the best shown negative
        agreeing = int((gaps > 0).sum())  # trainings whose argmax of the question's options is the gold
        agreeing_total += agreeing
        on_top = sum(int(pool[np.argmax(c[pool])]) == gold for c in cos)  # first max: smallest code on ties
        pool_top_total += on_top
        mg = min(lead, float(gaps.min()))
        status = SEED_DISAGREEMENT if agreeing < n_seeds else MARGIN if mg < margin else KEPT
        if status != KEPT:
            counts[status] += 1
            row(cl, target, dist, gold, cos, True, 0, agreeing, on_top, mg, lead, status)
            continue
        rejected += rej
        kept += 1
        cap.take(str(c_ids[gold]))
        rank_of = {int(c): i for i, c in enumerate(ranked)}
        for j, c in enumerate([gold, *negs]):
            row(cl, target, dist, c, cos, j == 0, rank_of[int(c)], agreeing, on_top, mg, lead, KEPT)
    table = pd.DataFrame(cols).astype({"cluster": "int64", "centroid_distance": "float64",
                                       "cosine": "float64", "is_answer": bool, "rank": "int64",
                                       "seeds_agreeing": "int64", "seeds_pool_argmax": "int64", "margin": "float64",
                                       "consensus_margin": "float64", "min_margin": "float64"})
    stats = {"measure": measure, "k": k, "seeds": n_seeds, "margin": margin, "n_targets": kept,
             "considered": visited, "dropped_seed_disagreement": counts[SEED_DISAGREEMENT],
             "dropped_margin": counts[MARGIN], "skipped": skipped,
             "dropped_gold_share": counts[GOLD_SHARE], "dropped_no_matched_distractors": counts[NO_MATCH],
             **fallbacks,
             "seed_agreement": round(agreeing_total / (n_seeds * visited), 4) if visited else None,
             "pool_argmax_agreement": round(pool_top_total / (n_seeds * visited), 4) if visited else None,
             "n_positives": n_positives, "embedding": column, "negatives_rejected_same_text": rejected,
             "min_interactions": min_interactions, "dropped_few_interactions": few,
             "candidates_few_interactions": int((~trained_c).sum())}
    # the report of the questions built from this table reads them (groundtruth/questions.py)
    table["min_interactions"] = min_interactions
    table["dropped_few_interactions"] = few
    table["candidates_few_interactions"] = int((~trained_c).sum())
    return table, stats


def all_prototypes(embeddings, interactions, n_targets, k=10, seed=0, n_positives=10, column="gmf", threads=1, *,
                   dataset: str, display: dict[str, str] | None = None, margin: float = 0.0,
                   min_interactions: int = 1, debias: Debias | None = None):
    parts, stats = [], {}
    for m in (m.id for m in measures.MEASURES if m.artifact == ARTIFACT):
        t, s = prototype_candidates(embeddings, interactions, m, n_targets, k, seed, n_positives=n_positives,
                                    column=column, threads=threads, dataset=dataset, display=display, margin=margin,
                                    min_interactions=min_interactions, debias=debias)
        parts.append(t)
        stats[m] = s
    return pd.concat(parts, ignore_index=True), stats
