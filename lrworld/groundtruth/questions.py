"""Question builders for the five HitRate@1 measures (10 candidates, one correct).

Every builder returns (records, report); records have the spine's question shape:
  {"qid", "dataset", "measure", "qtype": "hit10", "context", "candidates", "candidate_kind",
   "answer_index", "seed", "evidence"}
Candidates are ids (str). The answer's slot is drawn per question from a stream named by the
dataset, the measure and the question's key (`seeding.answer_slot`), so it is uniform over the 10
slots and no two measures or datasets share a slot sequence. Where a user is shown (target or
candidate) the context carries their recent items: `history` (target user) / `candidate_histories`
(candidate users), most recent last. No question shows two candidates whose prompt texts read the
same (`display`): assoc_rule draws another negative, the table measures drop the question and count
it (their artifacts already draw look-alike-free item negatives).
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

import numpy as np
import pandas as pd

from lrworld.core.display import display_key
from lrworld.prompts.render import history_overlap
from lrworld.questions import enforced
from lrworld.questions.distractors import Debias, GoldCap, Ranks, matched, sample
from lrworld.questions.measures import HIT10
from lrworld.questions.negatives import draw_distinct
from lrworld.core.seeding import answer_slot, place_answer, rng_for

QTYPE = "hit10"
N_CANDIDATES = 10
HISTORY_LEN = 10


def recent_items(interactions: pd.DataFrame, users, n: int = HISTORY_LEN) -> dict[str, list[str]]:
    """Last n item ids of each given user, chronological (contract order), most recent last."""
    users = set(map(str, users))
    sub = interactions[interactions["user_id"].isin(users)]
    return {str(u): [str(x) for x in g.to_numpy()[-n:]]
            for u, g in sub.groupby("user_id", sort=True)["item_id"]}


def _record(dataset, measure, key, context, candidates, kind, answer_index, seed, evidence):
    return {"qid": f"{dataset}/{measure}/{key}", "dataset": dataset, "measure": measure, "qtype": QTYPE,
            "context": context, "candidates": [str(c) for c in candidates], "candidate_kind": kind,
            "answer_index": int(answer_index), "seed": int(seed), "evidence": evidence}


def _user_key(recent: list[str], display: dict[str, str]) -> str:
    """What a prompt shows for a candidate user: its most recent items (prompts.render)."""
    from lrworld.prompts.render import USER_ITEMS_SHOWN

    return " ; ".join(display.get(i, i) for i in recent[-USER_ITEMS_SHOWN:])


# --- association rules --------------------------------------------------------------------------

def build_assoc_rule_questions(interactions: pd.DataFrame, rules: pd.DataFrame, n_questions: int,
                               seed: int, dataset: str, display: dict[str, str] | None = None,
                               debias: Debias | None = None, shown: Callable[[str], str] | None = None,
                               closeness=None):
    """One question per sampled rule A -> {c} with lift > 1 (single-item consequent).

    Negatives: 9 items drawn uniformly from the dataset's items, excluding the items of A and every
    consequent item of any mined rule with the same antecedent A (so no negative is a known rule
    consequent of A: each has support(A+x) < min_support or confidence(A->x) < min_confidence), and
    (with `display`, item id -> display key) any item that reads like the answer or a drawn negative.
    `debias`: negatives matched by interactions, the gold-share cap (lrworld/questions/distractors.py);
    with `shown` (item id -> the text the prompt shows) also by the words each shares with the
    antecedents' texts (a sequel's title, a franchise's, the genres), the `history_overlap`
    shortcut's signal: a rule whose consequent no pool can match so is dropped and counted; with
    `closeness` (an `option_features.Closeness`) also by how near the year and categories each
    prints are to the antecedents', the items shown by the rules kept so far drawn last."""
    debias = debias or Debias()
    cap = GoldCap(debias.cap(n_questions, HIT10))
    all_items = np.asarray(sorted(interactions["item_id"].astype(str).unique()), dtype=object)
    rule = _RuleIndex(rules)
    order = rng_for(seed, dataset, "assoc_rule", "rules").permutation(rule.eligible) if rule.eligible else []
    key = (lambda i: enforced.work_key(i, display)) if display is not None else None
    out, report = [], Counter()
    ranks, lengths = _assoc_strata(interactions, all_items, debias, display, shown)
    used = Counter() if ranks is not None and closeness is not None else None
    for i in order:
        if len(out) >= n_questions:
            break
        a, c = rule.ants[i], rule.cons[i][0]
        qkey = "+".join(a) + "->" + c
        if key and any(enforced.same_work(c, x, display) for x in a):
            # the consequent reads like an antecedent: a reader sees the answer in the question
            report["skipped_consequent_same_work_as_antecedent"] += 1
            continue
        if cap.full(c):
            report["dropped_gold_share"] += 1
            continue
        pool = all_items[~np.isin(all_items, list(rule.blocked[a]))]
        draw = rng_for(seed, dataset, "assoc_rule", "negatives", qkey)
        # never a negative reading like the answer, another pick or an antecedent (enforced.same_work)
        taken = [key(c), *map(key, a)] if key else ()
        if ranks is not None:
            got = _matched_negatives(a, c, pool, draw, key, taken, ranks, lengths, shown, report, closeness, used)
            if got is None:
                continue
            negs, rej = got
        else:
            negs, rej = draw_distinct(pool, N_CANDIDATES - 1, draw, key, taken)
        report["negatives_rejected_same_text"] += rej
        if len(negs) < N_CANDIDATES - 1:
            report["skipped_too_few_negatives"] += 1
            continue
        cap.take(c)
        if used is not None:
            used.update([c, *negs])
        out.append(_assoc_record(dataset, seed, rules, rule, i, a, c, qkey, negs))
    return out, {"eligible_rules": len(rule.eligible), **report}


class _RuleIndex:
    """The mined rules as the builder reads them: antecedents and consequents as tuples, every
    consequent of an antecedent (never one of its negatives), the confidence of each single-item
    rule, and the rules a question may come from (one consequent, lift > 1)."""

    def __init__(self, rules: pd.DataFrame):
        self.ants = [tuple(a) for a in rules["antecedents"]]
        self.cons = [tuple(c) for c in rules["consequents"]]
        self.blocked: dict[tuple, set] = {}
        self.conf: dict[tuple, float] = {}
        for a, c, cf in zip(self.ants, self.cons, rules["confidence"].to_numpy()):
            self.blocked.setdefault(a, set(a)).update(c)
            if len(c) == 1:
                self.conf[(a, c[0])] = float(cf)
        self.eligible = [i for i in range(len(rules)) if len(self.cons[i]) == 1 and rules["lift"].iat[i] > 1.0]


def _assoc_strata(interactions, all_items, debias: Debias, display, shown):
    """(popularity ranks, text-length ranks) of the items under `matched` (None, None otherwise):
    options are shown by title, so their length is matched too (the shown text's, else the display
    key's)."""
    if not debias.matched:
        return None, None
    ranks = Ranks(interactions["item_id"].astype(str).value_counts().to_dict(), all_items, log=True)
    length = (lambda i: len(shown(i))) if shown is not None else (lambda i: len(display.get(i, "")))
    lengths = Ranks({i: length(i) for i in all_items}, all_items) if (display is not None or shown is not None) else None
    return ranks, lengths


def _matched_negatives(a, c, pool, draw, key, taken, ranks, lengths, shown, report, closeness=None, used=None):
    """(negatives, rejected) matched on popularity, length, the words shared with the antecedents'
    shown texts and (`closeness`) the nearness of the years and categories they print; None
    (counted in `report` by what runs short) when no draw can."""
    shuffled = sample(pool[draw.permutation(len(pool))])
    overlap = None
    if shown is not None:
        words = history_overlap([shown(x) for x in (c, *shuffled)], [shown(x) for x in a])
        overlap = Ranks(dict(zip((c, *shuffled), words)), (c, *shuffled))
    close = closeness.ranks(closeness.items(a), [c, *shuffled]) if closeness is not None else None
    got = matched(shuffled, c, N_CANDIDATES - 1, ranks, draw, key, taken, lengths=lengths, fallbacks=report,
                  overlap=overlap, every_draw=True, closeness=close, used=used)
    if got is None:
        # named by what runs short: the popularity side, or only the overlap one
        by_count = overlap is not None and matched(shuffled, c, N_CANDIDATES - 1, ranks, draw, key, taken,
                                                   every_draw=True)
        report["dropped_no_overlap_matched_distractors" if by_count else "dropped_no_matched_distractors"] += 1
    return got


def _assoc_record(dataset, seed, rules, rule: _RuleIndex, i, a, c, qkey, negs) -> dict:
    slot = answer_slot(seed, dataset, "assoc_rule", qkey, N_CANDIDATES)
    cands = place_answer(c, negs, slot)
    ev = {"support": float(rules["support"].iat[i]), "confidence": float(rules["confidence"].iat[i]),
          "lift": float(rules["lift"].iat[i]),
          "candidate_confidence": [rule.conf.get((a, x)) for x in cands]}
    return _record(dataset, "assoc_rule", qkey, {"antecedents": list(a)}, cands, "item", slot, seed, ev)


# --- candidate tables (memory similarity, NeuMF prototypes) -------------------------------------

def _drop_report(table) -> dict:
    """What the artifact's margin and seed rules dropped: its `status` rows."""
    if "status" not in table:
        return {}
    per = table.drop_duplicates("target")
    out = {"candidates_considered": int(len(per)),
           "dropped_margin": int((per["status"] == "margin").sum())}
    for status in ("gold_share", "no_matched_distractors"):  # questions.max_gold_share, distractors: matched
        if (per["status"] == status).any():
            out[f"dropped_{status}"] = int((per["status"] == status).sum())
    if "seeds_agreeing" in per:
        seeds = len(per["seed_cosines"].iat[0]) if len(per) else 0
        out.update({"seeds": seeds, "dropped_seed_disagreement": int((per["status"] == "seed_disagreement").sum()),
                    # share of (target, training) pairs whose argmax of the question's options is the gold
                    "seed_agreement": round(float(per["seeds_agreeing"].sum()) / (seeds * len(per)), 4)
                    if len(per) else None,
                    "min_margin": float(per["min_margin"].iat[0]) if len(per) else None})
        if "min_interactions" in per and len(per):  # groundtruth.neural.min_interactions (eligibility.py)
            out.update({k: int(per[k].iat[0]) for k in ("min_interactions", "dropped_few_interactions",
                                                         "candidates_few_interactions")})
        if "seeds_pool_argmax" in per:  # ... and whose argmax of the whole pool is (the old rule's figure)
            out["pool_argmax_agreement"] = (round(float(per["seeds_pool_argmax"].sum()) / (seeds * len(per)), 4)
                                            if len(per) else None)
    return out


def _from_table(interactions, table, score_col, measure, target_kind, cand_kind, n_questions, seed,
                dataset, extra_cols=(), display=None, sort=False):
    """`score_col` None: the evidence carries no per-candidate float (neural scores move with the
    machine; they stay in the artifact). `sort`: the file in qid order, not the artifact's visit order."""
    out = []
    report = Counter(_drop_report(table))
    if "status" in table:
        table = table[table["status"] == "kept"]
    targets = list(dict.fromkeys(table["target"].astype(str)))[:n_questions]
    groups = {t: g for t, g in table.groupby(table["target"].astype(str), sort=False)}
    users_needed = set()
    if target_kind == "user":
        users_needed.update(targets)
    if cand_kind == "user":
        for t in targets:
            users_needed.update(groups[t]["candidate"].astype(str))
    hist = recent_items(interactions, users_needed) if users_needed else {}
    for t in targets:
        g = groups[t]
        ans = g[g["is_answer"]]
        if len(ans) != 1:
            raise ValueError(f"{measure}: target {t} has {len(ans)} answers in the artifact")
        answer = str(ans["candidate"].iat[0])
        negs = [str(x) for x in g.loc[~g["is_answer"], "candidate"]]
        score = dict(zip(g["candidate"].astype(str), g[score_col].astype(float))) if score_col else {}
        slot = answer_slot(seed, dataset, measure, t, len(negs) + 1)
        cands = place_answer(answer, negs, slot)
        if display is not None:
            shown = [_user_key(hist.get(c, []), display) if cand_kind == "user" else display.get(c, c) for c in cands]
            if len({display_key(x) for x in shown}) < len(shown):
                # two options would read the same: the artifact fixed the negatives, so drop and count
                report["dropped_same_text"] += 1
                continue
        ctx = {f"target_{target_kind}": t}
        if target_kind == "user":
            ctx["history"] = hist.get(t, [])
        if cand_kind == "user":
            ctx["candidate_histories"] = {c: hist.get(c, []) for c in cands}
        ev = {score_col: [score[c] for c in cands]} if score_col else {}
        for col in extra_cols:
            v = g[col].iloc[0]
            ev[col] = v.item() if hasattr(v, "item") else v
        out.append(_record(dataset, measure, t, ctx, cands, cand_kind, slot, seed, ev))
    if sort:
        out.sort(key=lambda q: q["qid"])
    return out, {"targets_in_artifact": len(groups), **report}


def build_mem_item_item_questions(interactions, pairs, n_questions, seed, dataset, display=None, debias=None):
    # debias: the artifact drew its negatives and capped its golds (questions.distractors, max_gold_share)
    p = pairs[pairs["kind"] == "item"] if "kind" in pairs else pairs
    return _from_table(interactions, p, "similarity", "mem_item_item", "item", "item", n_questions, seed,
                       dataset, extra_cols=("n_positives", "negative_cutoff", "negative_rule"), display=display)


def build_mem_user_user_questions(interactions, pairs, n_questions, seed, dataset, display=None, debias=None):
    # debias: the artifact drew its negatives and capped its golds (questions.distractors, max_gold_share)
    p = pairs[pairs["kind"] == "user"] if "kind" in pairs else pairs
    return _from_table(interactions, p, "similarity", "mem_user_user", "user", "user", n_questions, seed,
                       dataset, extra_cols=("n_positives", "negative_cutoff", "negative_rule"), display=display)


# The shared builder over a (target, candidate, is_answer, score) table, for a new measure's builder.
from_table = _from_table


# Only what 1e-5 of noise cannot move: the cluster, the trainings that agree, the margin every
# shown negative is beaten by under each (per-seed cosines and centroid distances: prototypes.parquet).
NEURAL_EVIDENCE = ("cluster", "seeds_agreeing", "min_margin")


def build_neu_item2users_questions(interactions, prototypes, n_questions, seed, dataset, display=None, debias=None):
    # debias: the artifact drew its negatives and capped its golds (questions.distractors, max_gold_share)
    p = prototypes[prototypes["measure"] == "neu_item2users"]
    return _from_table(interactions, p, None, "neu_item2users", "item", "user", n_questions, seed,
                       dataset, extra_cols=NEURAL_EVIDENCE, display=display, sort=True)


def build_neu_user2items_questions(interactions, prototypes, n_questions, seed, dataset, display=None, debias=None):
    # debias: the artifact drew its negatives and capped its golds (questions.distractors, max_gold_share)
    p = prototypes[prototypes["measure"] == "neu_user2items"]
    return _from_table(interactions, p, None, "neu_user2items", "user", "item", n_questions, seed,
                       dataset, extra_cols=NEURAL_EVIDENCE, display=display, sort=True)

