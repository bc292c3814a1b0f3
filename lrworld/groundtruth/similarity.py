"""Memory-based similarity (mem_item_item, mem_user_user): cosine of one-hot interaction vectors.

Computed on scipy.sparse matrices and only for the sampled targets, in row blocks: the largest
dense object is (block x n_entities), never n x n.

Semantics (docs/groundtruth.md):
- item-item: an item is the set of users who interacted with it; user-user: a user is the set of
  items they interacted with (binary, repeats count once). cos(a, b) = |a & b| / sqrt(|a| |b|).
- positives of a target t: entities e != t with cos(t, e) > threshold. The answer is the positive
  with the highest cosine (ties: smallest id). Negatives: 9 entities drawn uniformly without
  replacement from the negative pool, never t itself, and (items, with `display`) never one whose
  prompt text reads like the answer's or another negative's. The pool is the NON-positives
  (cos <= threshold). On dense data a threshold as low as 0.01 leaves almost no non-positives
  (every pair of users shares a popular item), so when it leaves fewer than 9 the pool falls back
  to the entities at or below the target's `fallback_quantile` (default: median) cosine, provided
  that cutoff is below the answer's cosine. The cutoff used is stored per target
  (`negative_cutoff`, `negative_rule`), so every negative has cos <= cutoff < cos(answer): the
  answer is the strict argmax among the 10 candidates.
- seeds: the visiting order from rng_for(seed, dataset, "similar_pairs", kind), each
  target's negatives from their own stream named by the target, so no two datasets or kinds share
  a draw and one target's negatives do not depend on the targets visited before it.
- margin: the answer must beat the runner-up (the second highest cosine of any entity
  but t) by at least `margin`; a target whose best is a tie or a near-tie (decided by id or by the
  last bit of a float, not by the data) is dropped with status `margin` (one row, for the report).
- targets: entities with >= min_degree interactions, visited in a seeded random order; a target is
  skipped when it has no positive or fewer than n_candidates-1 non-positives; at most max_visits
  targets are visited (so fewer than n_targets questions can come back; stats say how many).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import scipy.sparse as sp

from lrworld.questions import enforced
from lrworld.groundtruth.transactions import binary_matrix, index_interactions
from lrworld.questions.distractors import Debias, GoldCap, Ranks, matched, sample
from lrworld.questions.measures import HIT10
from lrworld.questions.negatives import draw_distinct
from lrworld.core.seeding import rng_for

PAIR_COLUMNS = ["kind", "target", "candidate", "similarity", "is_answer", "n_positives",
                "negative_cutoff", "negative_rule", "margin", "status"]


def cosine_rows(M: sp.csr_matrix, rows: np.ndarray, norms: np.ndarray | None = None) -> np.ndarray:
    """Dense (len(rows), n) cosine of the given rows of binary M against every row of M."""
    if norms is None:
        norms = np.sqrt(np.asarray(M.multiply(M).sum(axis=1)).reshape(-1))
    num = (M[rows] @ M.T).toarray()
    den = norms[rows][:, None] * norms[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return out


def similar_pairs(interactions: pd.DataFrame, kind: str, n_targets: int, threshold: float = 0.01,
                  seed: int = 0, n_candidates: int = 10, min_degree: int = 5, block: int = 64,
                  max_visits: int | None = None, fallback_quantile: float | None = 0.5, *, dataset: str,
                  display: dict[str, str] | None = None, margin: float = 0.0, debias: Debias | None = None,
                  closeness=None):
    """Return (pairs, stats). pairs: one row per (target, candidate), PAIR_COLUMNS; the answer row
    first within each target, then the negatives in draw order; targets in visiting order.
    max_visits bounds the work when most targets are skipped (default 20 * n_targets).
    `dataset` names the draws; `display` (entity id -> display key) keeps look-alike negatives out.
    `debias`: negatives matched by interactions and the gold-share cap (lrworld/questions/distractors.py);
    a target so dropped keeps one row, its status `gold_share` or `no_matched_distractors`.
    `closeness` (an `option_features.Closeness`, with `debias` matched): negatives matched by how near
    the year and categories their prompt text prints are to the target's (an item's own text, a
    user's history), and the entities shown by the targets kept so far drawn last."""
    debias = debias or Debias()
    M, ids = _entity_matrix(interactions, kind)
    degree = np.diff(M.indptr)
    norms = np.sqrt(degree.astype(np.float64))
    rng = rng_for(seed, dataset, "similar_pairs", kind)
    eligible = np.flatnonzero(degree >= min_degree)
    order = rng.permutation(eligible)
    n_neg = n_candidates - 1
    rows = []
    skipped = Counter({"no_positive": 0, "few_negatives": 0, "same_work": 0})
    visited = rejected = 0
    dropped = []
    key = (lambda c: enforced.work_key(ids[c], display)) if display is not None else None
    cap = GoldCap(debias.cap(n_targets, HIT10))
    ranks, lengths = _matched_ranks(debias, degree, ids, display)
    fallbacks = Counter()
    near = _Near(closeness, kind, ids, M) if debias.matched and closeness is not None else None
    if max_visits is None:
        max_visits = 20 * n_targets
    for t, s in _target_cosines(M, order[:max_visits], norms, block, done=lambda: len(rows) >= n_targets):
        if len(rows) >= n_targets:
            break
        visited += 1
        s[t] = -np.inf  # never the target itself
        pos = np.flatnonzero(s > threshold)
        if len(pos) == 0:
            skipped["no_positive"] += 1
            continue
        best = pos[np.argmax(s[pos])]  # first max = smallest code = smallest id (sorted codes)
        if key and enforced.same_work(ids[best], ids[t], display):
            # the gold would read like the target: no question a reader can answer
            skipped["same_work"] += 1
            continue
        lead = float(s[best] - np.max(np.delete(s, [best, t]))) if len(s) > 2 else float("inf")
        if lead < margin:
            dropped.append((t, best, s[best], len(pos), lead, "margin"))
            continue
        if cap.full(int(best)):
            dropped.append((t, best, s[best], len(pos), lead, "gold_share"))
            continue
        neg_pool, cutoff, rule = _negative_pool(s, t, best, threshold, n_neg, fallback_quantile)
        if len(neg_pool) < n_neg:
            skipped["few_negatives"] += 1
            continue
        draw = rng_for(seed, dataset, "similar_pairs", kind, "negatives", str(ids[t]))
        # never a negative reading like the gold, another pick or the target (enforced.same_work)
        taken = [key(best), key(t)] if key else ()
        got = _drawn_negatives(neg_pool, best, n_neg, draw, key, taken, ranks, lengths, fallbacks, near, t)
        if got is None:
            dropped.append((t, best, s[best], len(pos), lead, "no_matched_distractors"))
            continue
        negs, rej = got
        rejected += rej
        if len(negs) < n_neg:
            skipped["few_negatives"] += 1
            continue
        negs = np.asarray(negs)
        cap.take(int(best))
        if near is not None:
            near.used.update([int(best), *negs.tolist()])
        rows.append((t, best, negs, s[best], s[negs], len(pos), cutoff, rule, lead))
    stats = {"kind": kind, "n_entities": int(M.shape[0]), "n_eligible": int(len(eligible)),
             "n_visited": visited, "n_targets": len(rows), "skipped_no_positive": skipped["no_positive"],
             "skipped_few_negatives": skipped["few_negatives"],
             "skipped_gold_same_work_as_target": skipped["same_work"],
             "n_quantile_fallback": sum(r[7] == "below_quantile" for r in rows),
             "negatives_rejected_same_text": rejected, **_dropped_counts(dropped, margin, fallbacks),
             "threshold": threshold, "fallback_quantile": fallback_quantile, "min_degree": min_degree}
    return _pairs_frame(kind, ids, rows, dropped), stats


def _entity_matrix(interactions: pd.DataFrame, kind: str) -> tuple[sp.csr_matrix, np.ndarray]:
    """(binary matrix with one row per entity of `kind`, the entities' ids by row)."""
    if kind not in ("item", "user"):
        raise ValueError(f"kind must be 'item' or 'user', got {kind!r}")
    idx = index_interactions(interactions)
    B = binary_matrix(idx)  # users x items
    M = (B.T if kind == "item" else B).tocsr()
    return M, idx.item_ids if kind == "item" else idx.user_ids


def _matched_ranks(debias: Debias, degree: np.ndarray, ids, display: dict[str, str] | None):
    """(ranks by interactions, ranks by shown text length) the matched draw reads; None each where unused."""
    ranks = Ranks(dict(enumerate(degree.tolist())), range(len(degree)), log=True) if debias.matched else None
    # item options are shown by title: their text length is matched too (the display key's)
    lengths = (Ranks({c: len(display.get(str(ids[c]), "")) for c in range(len(ids))}, range(len(ids)))
               if debias.matched and display is not None else None)
    return ranks, lengths


def _target_cosines(M: sp.csr_matrix, order: np.ndarray, norms: np.ndarray, block: int, done):
    """(target, its cosine row against every entity) in `order`, computed a block of rows at a
    time; no block is computed once `done()`."""
    for start in range(0, len(order), block):
        if done():
            return
        blk = order[start:start + block]
        sims = cosine_rows(M, blk, norms)
        for j, t in enumerate(blk):
            yield t, sims[j]


def _negative_pool(s: np.ndarray, t: int, best: int, threshold: float, n_neg: int,
                   fallback_quantile: float | None) -> tuple[np.ndarray, float, str]:
    """(pool, cutoff, rule): the entities at or below the threshold but the target; when fewer
    than n_neg, those at or below the target's `fallback_quantile` cosine, if that is below the answer's."""
    cutoff, rule = float(threshold), "below_threshold"
    neg_pool = np.flatnonzero(s <= cutoff)
    neg_pool = neg_pool[neg_pool != t]
    if len(neg_pool) < n_neg and fallback_quantile is not None:
        others = np.delete(s, t)
        q = float(np.quantile(others, fallback_quantile))
        if q < s[best]:
            cutoff, rule = q, "below_quantile"
            neg_pool = np.flatnonzero(s <= cutoff)
            neg_pool = neg_pool[neg_pool != t]
    return neg_pool, cutoff, rule


class _Near:
    """Closeness to a target of every entity of one kind, by code, and the codes shown so far."""

    def __init__(self, closeness, kind: str, ids: np.ndarray, M: sp.csr_matrix):
        from lrworld.groundtruth.questions import HISTORY_LEN

        self.closeness, self.kind, self.ids = closeness, kind, ids
        self.used: Counter = Counter()
        # what a prompt shows of the target: an item's own text, a user's latest items (its history)
        self.history_len = HISTORY_LEN

    def ranks(self, t: int, pool: list[int]) -> Ranks | None:
        c = self.closeness
        if self.kind == "item":
            context = c.item.get(str(self.ids[t]))
        else:
            context = c.items(c.recent(str(self.ids[t]), self.history_len))
        by_id = c.ranks(context, [str(self.ids[e]) for e in pool], self.kind)
        return None if by_id is None else Ranks({e: by_id.count[str(self.ids[e])] for e in pool}, pool)


def _drawn_negatives(neg_pool: np.ndarray, best: int, n_neg: int, draw: np.random.Generator, key, taken,
                     ranks: Ranks | None, lengths: Ranks | None, fallbacks: Counter, near: _Near | None = None,
                     t: int | None = None):
    """(negatives, look-alikes rejected): matched by interactions with `ranks` (None when no
    matched set exists), and by closeness to the target with `near`, else uniform."""
    if ranks is not None:
        order = [int(c) for c in sample(neg_pool[draw.permutation(len(neg_pool))])]
        close = near.ranks(t, [int(best), *order]) if near is not None else None
        return matched(order, int(best), n_neg, ranks, draw, key, taken, lengths=lengths, fallbacks=fallbacks,
                       closeness=close, used=near.used if near is not None else None)
    return draw_distinct(neg_pool, n_neg, draw, key, taken)


def _dropped_counts(dropped: list[tuple], margin: float, fallbacks: Counter) -> dict:
    """The stats of the dropped targets, per reason (and the matched draw's fallbacks)."""
    return {"dropped_margin": sum(d[5] == "margin" for d in dropped), "margin": margin,
            "dropped_gold_share": sum(d[5] == "gold_share" for d in dropped),
            "dropped_no_matched_distractors": sum(d[5] == "no_matched_distractors" for d in dropped), **fallbacks}


def _pairs_frame(kind: str, ids, rows: list[tuple], dropped: list[tuple]) -> pd.DataFrame:
    """PAIR_COLUMNS: each kept target's answer and negatives, then one row per dropped target."""
    out = {c: [] for c in PAIR_COLUMNS}
    for t, best, negs, sb, sn, npos, cutoff, rule, lead in rows:
        cands = np.r_[best, negs]
        out["kind"] += [kind] * len(cands)
        out["target"] += [str(ids[t])] * len(cands)
        out["candidate"] += [str(ids[c]) for c in cands]
        out["similarity"] += [float(sb)] + [float(x) for x in sn]
        out["is_answer"] += [True] + [False] * len(negs)
        out["n_positives"] += [int(npos)] * len(cands)
        out["negative_cutoff"] += [float(cutoff)] * len(cands)
        out["negative_rule"] += [rule] * len(cands)
        out["margin"] += [float(lead)] * len(cands)
        out["status"] += ["kept"] * len(cands)
    for t, best, sb, npos, lead, status in dropped:
        for c, v in zip(PAIR_COLUMNS, (kind, str(ids[t]), str(ids[best]), float(sb), True, int(npos), float("nan"),
                                       "", lead, status)):
            out[c].append(v)
    pairs = pd.DataFrame(out)
    pairs["similarity"] = pairs["similarity"].astype("float64")
    pairs["is_answer"] = pairs["is_answer"].astype(bool)
    pairs["n_positives"] = pairs["n_positives"].astype("int64")
    return pairs
