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
# groundtruth.neural.gold: the paper's GMF cosine, or the trained model's predicted preference
COSINE, SCORE = "cosine", "score"


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
                         debias: Debias | None = None, closeness=None, preferences=None):
    """Return (table, stats): PROTO_COLUMNS, answer row first per kept target, targets in visit
    order (a dropped target: one row, its status says why). `display` (item id -> display key)
    keeps look-alike item negatives out: of the gold, of each other and of the target user's history.
    An entity with fewer than `min_interactions` training interactions is never a target, a gold or
    a negative (lrworld/groundtruth/eligibility.py); the targets so passed over are counted
    (`dropped_few_interactions`). `debias`: matched negatives by the candidates' interactions and
    the gold-share cap (a dropped target's status says which); with `closeness` (an
    `option_features.Closeness`) also by how near the year and categories their prompt text prints are
    to the target's, the candidates shown by the targets kept so far drawn last. `preferences` (a
    `neumf.Preferences`; `groundtruth.neural.gold: score`): every candidate is scored by the trained
    NeuMF's predicted preference for the target (the whole model) instead of the GMF cosine, under
    each training; the table then says so (`gold`: score)."""
    debias = debias or Debias()
    # the direction (target kind -> candidate kind) is the measure's registry entry's
    direction = measures.by_id(measure).gold
    tkind, ckind = direction.target, direction.candidate
    n_seeds = n_trainings(embeddings)
    t_ids, Ts = _matrices(embeddings, tkind, column, n_seeds)
    c_ids, Cs = _matrices(embeddings, ckind, column, n_seeds)
    c_pos = {cid: j for j, cid in enumerate(c_ids)}
    if max_visits is None:
        max_visits = 20 * n_targets
    targets = _visits(Ts, k, max_visits, seed, dataset, measure, threads)
    c_list = [str(c) for c in c_ids]
    counts = training_counts(interactions)
    cap = GoldCap(debias.cap(n_targets, HIT10))
    ranks, lengths = _matched_ranks(debias, interactions, ckind, c_ids, display)
    trained_c = eligible_by_count(c_ids, counts[ckind], min_interactions)
    trained_t = eligible_by_count(t_ids, counts[tkind], min_interactions)
    known = _known_of_targets(interactions, tkind, t_ids, targets)
    key = _work_key(c_ids, display) if ckind == "item" else None
    draw = _Negatives(seed, dataset, measure, n_candidates - 1, c_ids, c_pos, display, key, ranks, lengths)
    if ranks is not None and closeness is not None:
        draw.near = (closeness, tkind, ckind)
    rows = _Rows(measure, c_ids, margin)
    tally = Counter({"skipped": 0, "rejected": 0, "kept": 0, "visited": 0, "few": 0, SEED_DISAGREEMENT: 0,
                     MARGIN: 0, GOLD_SHARE: 0, NO_MATCH: 0, "agreeing": 0, "pool_top": 0})
    for r, cl, dist in targets:
        if tally["kept"] >= n_targets:
            break
        if not trained_t[r]:
            tally["few"] += 1
            continue
        target = str(t_ids[r])
        # (trainings, entities), float64: the GMF cosine, or the model's predicted preference
        cos = (preferences.scores(tkind, target, c_list) if preferences is not None
               else np.stack([C @ T[r] for C, T in zip(Cs, Ts)]))
        in_pool = trained_c.copy()
        in_pool[[c_pos[i] for i in known.get(target, set()) if i in c_pos]] = False
        pool = np.flatnonzero(in_pool)
        if len(pool) < n_positives + n_candidates - 1:
            tally["skipped"] += 1
            continue
        ranked, gold, lead = _consensus_best(cos, pool)
        eligible = _never_negative(in_pool, pool, ranked, cos, n_positives)
        if cap.full(str(c_ids[gold])):
            tally[GOLD_SHARE] += 1
            rows.add(cl, target, dist, gold, cos, True, 0, 0, 0, lead, lead, GOLD_SHARE)
            continue
        drawn = draw.negatives(target, gold, eligible, known)
        if drawn is None:
            tally[NO_MATCH] += 1
            rows.add(cl, target, dist, gold, cos, True, 0, 0, 0, lead, lead, NO_MATCH)
            continue
        negs, rej = drawn
        if len(negs) < n_candidates - 1:
            tally["skipped"] += 1
            continue
        tally["visited"] += 1
        agreeing, on_top, mg, status = _agreement(cos, gold, negs, pool, lead, margin)
        tally["agreeing"] += agreeing
        tally["pool_top"] += on_top
        if status != KEPT:
            tally[status] += 1
            rows.add(cl, target, dist, gold, cos, True, 0, agreeing, on_top, mg, lead, status)
            continue
        tally["rejected"] += rej
        tally["kept"] += 1
        cap.take(str(c_ids[gold]))
        draw.used.update(str(c_ids[c]) for c in [gold, *negs])
        rank_of = {int(c): i for i, c in enumerate(ranked)}
        for j, c in enumerate([gold, *negs]):
            rows.add(cl, target, dist, c, cos, j == 0, rank_of[int(c)], agreeing, on_top, mg, lead, KEPT)
    few_candidates = int((~trained_c).sum())
    table = rows.frame()
    # the report of the questions built from this table reads them (groundtruth/questions.py)
    table["min_interactions"] = min_interactions
    table["dropped_few_interactions"] = tally["few"]
    table["candidates_few_interactions"] = few_candidates
    if preferences is not None:
        table["gold"] = SCORE
    return table, _stats(measure, k, n_seeds, margin, tally, draw.fallbacks, n_positives, column, min_interactions,
                         few_candidates)


def _visits(Ts: list[np.ndarray], k: int, max_visits: int, seed: int, dataset: str, measure: str,
            threads: int) -> list:
    """The targets to visit, in k-means round-robin order (kmeans_targets) over every training's
    embeddings side by side."""
    kmeans_seed = int(rng_for(seed, dataset, measure, "kmeans").integers(2**31))
    features = np.hstack(Ts) / np.sqrt(len(Ts))
    return kmeans_targets(features, k, max_visits, kmeans_seed, threads)


def _matched_ranks(debias: Debias, interactions: pd.DataFrame, ckind: str, c_ids: np.ndarray,
                   display: dict[str, str] | None) -> tuple[Ranks | None, Ranks | None]:
    """(ranks by interactions, ranks by shown text length) the matched draw reads; None each where unused."""
    ranks = None
    if debias.matched:  # the counts a popularity answerer reads: every interaction
        ranks = Ranks(interactions[f"{ckind}_id"].astype(str).value_counts().to_dict(), [str(c) for c in c_ids], log=True)
    # item options are shown by title: their text length is matched too (the display key's)
    lengths = (Ranks({str(c): len(display.get(str(c), "")) for c in c_ids}, [str(c) for c in c_ids])
               if ranks is not None and display is not None and ckind == "item" else None)
    return ranks, lengths


def _known_of_targets(interactions: pd.DataFrame, tkind: str, t_ids: np.ndarray, targets: list) -> dict[str, set]:
    """target id -> the candidates it interacted with, for the visited targets only (never a
    per-entity set of the whole data)."""
    tcol, ccol = ("user_id", "item_id") if tkind == "user" else ("item_id", "user_id")
    sub = interactions[interactions[tcol].astype(str).isin({str(t_ids[r]) for r, _, _ in targets})]
    return {str(t): set(g.astype(str)) for t, g in sub.groupby(tcol, sort=False)[ccol]}


def _consensus_best(cos: np.ndarray, pool: np.ndarray) -> tuple[np.ndarray, int, float]:
    """(the pool by consensus score, best first, ties by code; the gold; its lead over the runner-up)."""
    score = consensus_score(cos)
    ranked = pool[np.lexsort((pool, -score[pool]))]
    gold = int(ranked[0])
    return ranked, gold, float(score[gold] - score[ranked[1]])


def _never_negative(in_pool: np.ndarray, pool: np.ndarray, ranked: np.ndarray, cos: np.ndarray,
                    n_positives: int) -> np.ndarray:
    """The pool less every positive: the consensus's and each training's n_positives highest."""
    eligible = in_pool.copy()
    eligible[ranked[:n_positives]] = False
    for c in cos:
        eligible[pool[np.lexsort((pool, -c[pool]))][:n_positives]] = False
    return eligible


def _agreement(cos: np.ndarray, gold: int, negs: list[int], pool: np.ndarray, lead: float,
               margin: float) -> tuple[int, int, float, str]:
    """(trainings whose argmax of the question's options is the gold, trainings whose argmax of the
    pool is the gold, the smallest of the lead and the gold's gap over each training's best
    negative, the status: kept only when every training agrees by the margin)."""
    gaps = cos[:, gold] - cos[:, negs].max(axis=1)  # per training: gold over the best shown negative
    agreeing = int((gaps > 0).sum())
    on_top = sum(int(pool[np.argmax(c[pool])]) == gold for c in cos)  # first max: smallest code on ties
    mg = min(lead, float(gaps.min()))
    status = SEED_DISAGREEMENT if agreeing < len(cos) else MARGIN if mg < margin else KEPT
    return agreeing, on_top, mg, status


def _work_key(c_ids: np.ndarray, display: dict[str, str] | None):
    """Candidate code -> what a reader takes the item for (None without `display`)."""
    if display is None:
        return None

    def key(c):
        return enforced.work_key(c_ids[c], display)
    return key


class _Negatives:
    """Each target's negatives: its own permutation of every candidate, uniform (first_eligible) or
    matched by interactions (and item text length)."""

    def __init__(self, seed: int, dataset: str, measure: str, n: int, c_ids: np.ndarray, c_pos: dict,
                 display: dict[str, str] | None, key, ranks: Ranks | None, lengths: Ranks | None):
        self.seed, self.dataset, self.measure, self.n = seed, dataset, measure, n
        self.c_ids, self.c_pos, self.display, self.key = c_ids, c_pos, display, key
        self.ranks, self.lengths = ranks, lengths
        self.fallbacks = Counter()
        # (option_features.Closeness, target kind, candidate kind): the closeness ranking, or None
        self.near = None
        self.used: Counter = Counter()  # candidates shown by the targets kept so far

    def _closeness(self, target: str, pool: list[str]):
        if self.near is None:
            return None
        from lrworld.groundtruth.questions import HISTORY_LEN

        c, tkind, ckind = self.near
        context = c.item.get(target) if tkind == "item" else c.items(c.recent(target, HISTORY_LEN))
        return c.ranks(context, pool, ckind)

    def negatives(self, target: str, gold: int, eligible: np.ndarray, known: dict) -> tuple[list, int] | None:
        """(negatives, look-alikes rejected), or None when no matched set exists."""
        seed, dataset, measure = self.seed, self.dataset, self.measure
        key, c_ids, c_pos = self.key, self.c_ids, self.c_pos
        order = rng_for(seed, dataset, measure, "negatives", target).permutation(len(c_ids))
        # an item reading like the gold, an earlier pick or an item the target met is taken (enforced.Met)
        taken = [key(gold), *enforced.Met(known.get(target, ()), self.display).by_work] if key else ()
        if self.ranks is not None:
            pool = [str(c_ids[i]) for i in order if eligible[i]]
            drawn = matched(pool, str(c_ids[gold]), self.n, self.ranks,
                            rng_for(seed, dataset, measure, "matched", target),
                            key=(lambda c: key(c_pos[c])) if key else None, taken=taken, lengths=self.lengths,
                            fallbacks=self.fallbacks, closeness=self._closeness(target, [str(c_ids[gold]), *pool]),
                            used=self.used if self.near is not None else None)
            if drawn is None:
                return None
            return [c_pos[c] for c in drawn[0]], drawn[1]
        return first_eligible(order, eligible, self.n, key, taken)


class _Rows:
    """The table's columns (PROTO_COLUMNS), a row at a time."""

    def __init__(self, measure: str, c_ids: np.ndarray, margin: float):
        self.measure, self.c_ids, self.margin = measure, c_ids, margin
        self.cols = {c: [] for c in PROTO_COLUMNS}

    def add(self, cl, target, dist, cand, cos, is_answer, rank, agreeing, on_top, mg, lead, status):
        for name, v in zip(PROTO_COLUMNS, (self.measure, cl, target, dist, str(self.c_ids[cand]),
                                           float(cos.mean(axis=0)[cand]), is_answer, rank,
                                           [float(x) for x in cos[:, cand]], agreeing, on_top, mg, lead, self.margin,
                                           status)):
            self.cols[name].append(v)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.cols).astype({"cluster": "int64", "centroid_distance": "float64",
                                               "cosine": "float64", "is_answer": bool, "rank": "int64",
                                               "seeds_agreeing": "int64", "seeds_pool_argmax": "int64",
                                               "margin": "float64", "consensus_margin": "float64",
                                               "min_margin": "float64"})


def _stats(measure: str, k: int, n_seeds: int, margin: float, tally: Counter, fallbacks: Counter, n_positives: int,
           column: str, min_interactions: int, few_candidates: int) -> dict:
    visited = tally["visited"]
    return {"measure": measure, "k": k, "seeds": n_seeds, "margin": margin, "n_targets": tally["kept"],
            "considered": visited, "dropped_seed_disagreement": tally[SEED_DISAGREEMENT],
            "dropped_margin": tally[MARGIN], "skipped": tally["skipped"],
            "dropped_gold_share": tally[GOLD_SHARE], "dropped_no_matched_distractors": tally[NO_MATCH],
            **fallbacks,
            "seed_agreement": round(tally["agreeing"] / (n_seeds * visited), 4) if visited else None,
            "pool_argmax_agreement": round(tally["pool_top"] / (n_seeds * visited), 4) if visited else None,
            "n_positives": n_positives, "embedding": column, "negatives_rejected_same_text": tally["rejected"],
            "min_interactions": min_interactions, "dropped_few_interactions": tally["few"],
            "candidates_few_interactions": few_candidates}


def all_prototypes(embeddings, interactions, n_targets, k=10, seed=0, n_positives=10, column="gmf", threads=1, *,
                   dataset: str, display: dict[str, str] | None = None, margin: float = 0.0,
                   min_interactions: int = 1, debias: Debias | None = None, closeness=None, preferences=None):
    parts, stats = [], {}
    for m in (m.id for m in measures.MEASURES if m.artifact == ARTIFACT):
        t, s = prototype_candidates(embeddings, interactions, m, n_targets, k, seed, n_positives=n_positives,
                                    column=column, threads=threads, dataset=dataset, display=display, margin=margin,
                                    min_interactions=min_interactions, debias=debias, closeness=closeness,
                                    preferences=preferences)
        parts.append(t)
        stats[m] = s
    return pd.concat(parts, ignore_index=True), stats
