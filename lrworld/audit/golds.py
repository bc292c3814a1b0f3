"""Every HitRate@1 gold re-derived from the evidence behind it.

| recipe (`measures.Gold`) | re-derived from | the gold must be |
|---|---|---|
| `rule` (assoc_rule) | the measure's artifact (rules.parquet) | the consequent of a mined rule A -> {c} with lift > 1, with the support and confidence the question carries; no negative a consequent of any rule with antecedent A |
| `table` | the measure's artifact (its rows for the target) | the artifact's answer over the artifact's candidates, the strict argmax of the declared score |
| `table`, recompute `interactions` (mem_item_item, mem_user_user) | and the interactions | the strict argmax of the cosine of one-hot sets, recomputed here |
| `table`, recompute `embeddings` (neu_item2users, neu_user2items) | and the NeuMF weights (or embeddings.parquet) | the argmax under every NeuMF training by the artifact's margin, with the cosines recomputed from the weights themselves (the artifact's per-training cosines must be theirs, embeddings.parquet must hold the weights' vectors) |

Which recipe a measure follows is its registry entry's `gold`: no measure with an artifact is
registered without one, and nothing here names a measure.

The question's own evidence (the scores it carries per candidate) is checked too: its answer must
be the argmax of those scores. Each failure kind is its own named check (`CHECKS`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from lrworld.questions import measures

CHECKS = ("gold_not_argmax", "gold_differs_from_artifact", "evidence_differs_from_artifact",
          "artifact_differs_from_embeddings", "embeddings_differ_from_weights", "rule_not_in_artifact",
          "negative_is_rule_consequent")

EMBEDDING = "gmf"
TOL = 1e-9


def _gold(measure: str) -> measures.Gold | None:
    """The measure's registry entry's gold recipe (None: a measure without an artifact)."""
    try:
        return measures.by_id(measure).gold
    except KeyError:
        return None


def _argmax_failure(scores: list[float], a: int, cands: list[str], source: str) -> str | None:
    """Why candidate `a` is not the strict argmax of `scores`, or None."""
    rival = max((j for j in range(len(scores)) if j != a), key=lambda j: scores[j], default=None)
    if rival is None or scores[a] > scores[rival] + TOL:
        return None
    return f"the answer {cands[a]} has {source} {scores[a]:.3f}, candidate {cands[rival]} has {scores[rival]:.3f}"


def _per_training_failures(g: pd.DataFrame, cands: list[str], a: int) -> list[str]:
    """Each NeuMF training under which the answer does not lead every other option by the artifact's
    margin (`min_margin`, the configured one): the rule the artifact was built by (prototypes.py)."""
    per = dict(zip(g["candidate"].astype(str), g["seed_cosines"]))
    need = float(g["min_margin"].iat[0]) if "min_margin" in g else 0.0
    out = []
    for j in range(len(per[cands[a]])):
        s = [float(per[c][j]) for c in cands]
        rival = max((k for k in range(len(s)) if k != a), key=lambda k: s[k])
        if s[a] - s[rival] < max(need, TOL) - TOL:
            out.append(f"under NeuMF training {j} the answer {cands[a]} has cosine {s[a]:.4f}, candidate "
                       f"{cands[rival]} {s[rival]:.4f} (the margin is {need:g})")
    return out


def _unit_vectors(emb: pd.DataFrame, need: dict[str, set]) -> dict[str, list[dict[str, np.ndarray]]]:
    """kind -> per training {id: unit GMF vector} of the ids `need` names."""
    n = int(emb["seed"].max()) + 1 if "seed" in emb and len(emb) else 1
    out = {}
    for kind, ids in need.items():
        sub = emb[(emb["kind"] == kind) & emb["id"].astype(str).isin(ids)]
        per = []
        for j in range(n):
            t = sub[sub["seed"] == j] if "seed" in sub else sub
            vecs = {}
            for i, v in zip(t["id"].astype(str), t[EMBEDDING]):
                v = np.asarray(v, dtype=np.float64)
                norm = np.linalg.norm(v)
                vecs[i] = v / norm if norm > 0 else v
            per.append(vecs)
        out[kind] = per
    return out


def _target_of(q: dict, gold: measures.Gold) -> str:
    """The id of the entity question `q` asks about."""
    return str((q.get("context") or {}).get(f"target_{gold.target}"))


def _rows_by_target(t: pd.DataFrame, gold: measures.Gold, qs: list[dict]) -> dict[str, pd.DataFrame]:
    """target -> its rows of artifact table `t`, for the targets the questions name."""
    targets = {_target_of(q, gold) for q in qs}
    t = t[t["target"].astype(str).isin(targets)]
    return {k: g for k, g in t.groupby(t["target"].astype(str), sort=False)}


def _one_hot_sets(interactions: pd.DataFrame, gold: measures.Gold, qs: list[dict]) -> dict[str, set]:
    """One-hot sets of the entities the questions name (targets and candidates): item -> its users,
    user -> its items."""
    ids = set()
    for q in qs:
        ids.add(_target_of(q, gold))
        ids.update(map(str, q["candidates"]))
    col, other = ("item_id", "user_id") if gold.target == "item" else ("user_id", "item_id")
    sub = interactions[interactions[col].astype(str).isin(ids)]
    return {str(k): set(g.astype(str)) for k, g in sub.groupby(col, sort=False)[other]}


def _named_ids(neural: dict[str, measures.Gold], questions: dict[str, list[dict]]) -> dict[str, set]:
    """kind (item, user) -> the ids the neural questions name, as targets or candidates."""
    need: dict[str, set] = {"item": set(), "user": set()}
    for m, g in neural.items():
        for q in questions[m]:
            need[g.target].add(_target_of(q, g))
            need[g.candidate].update(map(str, q["candidates"]))
    return need


class Evidence:
    """The ground-truth artifacts and the interactions the golds are re-derived from, indexed for
    the targets the questions name."""

    def __init__(self, interactions: pd.DataFrame, artifacts: dict[str, pd.DataFrame] | None,
                 questions: dict[str, list[dict]]):
        artifacts = artifacts or {}
        # each measure's registry entry says how its gold is recomputed (measures.Gold)
        self.golds = {m: g for m in questions if (g := _gold(m)) is not None}
        self.tables: dict[str, dict[str, pd.DataFrame]] = {}
        self.sets: dict[str, dict[str, set]] = {}
        for m, gold in self.golds.items():
            if gold.recipe != measures.TABLE:
                continue
            t = self._table(m, gold, artifacts)
            if t is not None:
                self.tables[m] = _rows_by_target(t, gold, questions[m])
            if gold.recompute == measures.INTERACTIONS:
                self.sets[m] = _one_hot_sets(interactions, gold, questions[m])
        self._read_vectors(artifacts, questions)
        self._read_rules(artifacts)

    def _read_vectors(self, artifacts: dict[str, pd.DataFrame], questions: dict[str, list[dict]]) -> None:
        """Unit GMF vectors per kind and training, of the ids the neural questions name: from the
        saved NeuMF weights where the audit has them (`neumf`, the rawest artifact), else from
        embeddings.parquet; `stored` keeps embeddings.parquet's to compare with the weights'."""
        self.vectors: dict[str, list[dict[str, np.ndarray]]] = {}
        self.stored: dict[str, list[dict[str, np.ndarray]]] = {}
        self.source = "embeddings.parquet"
        emb, weights = artifacts.get("embeddings"), artifacts.get("neumf")
        # groundtruth.neural.gold: score: the golds are the whole model's predicted preferences
        self.preferences = weights.attrs.get("preferences") if weights is not None else None
        self.scored = {m for m, by in self.tables.items() if any("gold" in g and (g["gold"] == "score").any()
                                                                for g in list(by.values())[:1])}
        neural = {m: g for m, g in self.golds.items() if g.recompute == measures.EMBEDDINGS}
        if (emb is None and weights is None) or not neural:
            return
        need = _named_ids(neural, questions)
        if emb is not None:
            self.stored = _unit_vectors(emb, need)
        if weights is not None:
            self.vectors, self.source = _unit_vectors(weights, need), "the NeuMF weights (neumf.pt)"
        else:
            self.vectors = self.stored

    def _read_rules(self, artifacts: dict[str, pd.DataFrame]) -> None:
        """`rules`: (antecedents, consequent) -> (support, confidence, lift) of the mined rules with
        one consequent; `consequents`: antecedents -> every consequent of a rule (None and unset
        without a rules artifact)."""
        self.rules = None
        ruled = [m for m, g in self.golds.items() if g.recipe == measures.RULE]
        r = artifacts.get(measures.by_id(ruled[0]).artifact) if ruled else None
        if r is None:
            return
        self.rules = {}
        self.consequents: dict[tuple, set] = {}
        for a, c, s, cf, lift in zip(r["antecedents"], r["consequents"], r["support"], r["confidence"], r["lift"]):
            a, c = tuple(sorted(map(str, a))), tuple(sorted(map(str, c)))
            self.consequents.setdefault(a, set()).update(c)
            if len(c) == 1:
                self.rules[(a, c[0])] = (float(s), float(cf), float(lift))

    @staticmethod
    def _table(measure: str, gold: measures.Gold, artifacts: dict[str, pd.DataFrame]) -> pd.DataFrame | None:
        """The measure's rows of its artifact (one artifact may hold several measures' rows, by a
        `measure` column, or several kinds of target, by a `kind` column)."""
        t = artifacts.get(measures.by_id(measure).artifact)
        if t is None:
            return None
        if "measure" in t:
            t = t[t["measure"] == measure]
        if "kind" in t:
            t = t[t["kind"] == gold.target]
        return t

    def neural_cosines(self, measure: str, target: str, cands: list[str]) -> list[list[float]] | None:
        """(training, candidate) cosines recomputed from embeddings.parquet; None when not loaded.
        Raises KeyError naming an id the embeddings do not hold."""
        tk, ck = self.golds[measure].target, self.golds[measure].candidate
        if measure in self.scored:
            if self.preferences is None:
                return None
            return self.preferences.scores(tk, target, cands).tolist()
        if tk not in self.vectors:
            return None
        out = []
        for T, C in zip(self.vectors[tk], self.vectors[ck]):
            if target not in T:
                raise KeyError(f"{tk} {target}")
            miss = next((c for c in cands if c not in C), None)
            if miss is not None:
                raise KeyError(f"{ck} {miss}")
            out.append([float(C[c] @ T[target]) for c in cands])
        return out

    def stored_differs(self, kind: str, ids: list[str]) -> list[str]:
        """The ids whose embeddings.parquet vector is not the saved weights' (or is missing there),
        when both were read."""
        if self.vectors is self.stored or kind not in self.stored or kind not in self.vectors:
            return []
        out = []
        for i in ids:
            for W, S in zip(self.vectors[kind], self.stored[kind]):
                if i in W and (i not in S or not np.allclose(W[i], S[i], atol=1e-6)):
                    out.append(i)
                    break
        return out

    def cosine(self, measure: str, a: str, b: str) -> float:
        sa, sb = self.sets[measure].get(a, set()), self.sets[measure].get(b, set())
        return len(sa & sb) / math.sqrt(len(sa) * len(sb)) if sa and sb else 0.0


def _embedding_checks(path, q, ev, m, target, cands, a, g, violation) -> list:
    """The neural gold against the embeddings: under every training the answer leads every other
    option by the artifact's margin, and the artifact's per-training cosines are the embeddings'."""
    try:
        cos = ev.neural_cosines(m, target, cands)
    except KeyError as exc:
        return [violation(path, q["qid"], "artifact_differs_from_embeddings",
                          f"{exc.args[0]} is not in {ev.source}")]
    if cos is None:
        return []
    out = []
    tk, ck = ev.golds[m].target, ev.golds[m].candidate
    edited = [f"{tk} {x}" for x in ev.stored_differs(tk, [target])] + [
        f"{ck} {x}" for x in ev.stored_differs(ck, cands)]
    if edited:
        out.append(violation(path, q["qid"], "embeddings_differ_from_weights",
                             f"embeddings.parquet holds other vectors than the saved NeuMF weights for "
                             f"{', '.join(edited)}"))
    need = float(g["min_margin"].iat[0]) if g is not None and "min_margin" in g else 0.0
    for j, s in enumerate(cos):
        rival = max((k for k in range(len(s)) if k != a), key=lambda k: s[k])
        if s[a] - s[rival] < max(need, TOL) - TOL:
            out.append(violation(path, q["qid"], "gold_not_argmax",
                                 f"recomputed from {ev.source}, under NeuMF training {j} the answer {cands[a]} "
                                 f"has cosine {s[a]:.4f}, candidate {cands[rival]} {s[rival]:.4f} (the margin is "
                                 f"{need:g})"))
    if g is not None and "seed_cosines" in g:
        art = {str(c): [float(x) for x in v] for c, v in zip(g["candidate"], g["seed_cosines"])}
        for k, c in enumerate(cands):
            if c in art and any(abs(x - cos[j][k]) > 1e-6 for j, x in enumerate(art[c][:len(cos)])):
                out.append(violation(path, q["qid"], "artifact_differs_from_embeddings",
                                     f"prototypes.parquet gives candidate {c} cosines "
                                     f"{', '.join(f'{x:.4f}' for x in art[c])}, {ev.source} "
                                     f"{', '.join(f'{cos[j][k]:.4f}' for j in range(len(cos)))}"))
                break
    return out


def _own_evidence_failures(ev: Evidence, m: str, gold: measures.Gold, target: str, scores, cands: list[str],
                           a: int) -> list[str]:
    """Why the answer is not the argmax of the scores the question carries, nor of the cosines
    recomputed from the interactions (where its gold is recomputed from them)."""
    why = []
    if isinstance(scores, list) and len(scores) == len(cands):
        why.append(_argmax_failure([float(s) for s in scores], a, cands, f"{gold.score} (the question's evidence)"))
    if gold.recompute == measures.INTERACTIONS:
        rec = [ev.cosine(m, target, c) for c in cands]
        why.append(_argmax_failure(rec, a, cands, "cosine (recomputed from the interactions)"))
    return [w for w in why if w]


def _artifact_failures(g: pd.DataFrame | None, col: str, target: str, scores, cands: list[str],
                       a: int) -> list[tuple[str, str]]:
    """(check, detail) of each way the target's rows `g` of the ground-truth artifact disagree with
    the question: its candidates, its answer, the argmax of its scores (under every NeuMF training
    where it has them), the scores the question carries."""
    if g is None:
        return [("gold_differs_from_artifact", f"target {target} is not in the ground-truth artifact")]
    answer = cands[a]
    art = dict(zip(g["candidate"].astype(str), g[col].astype(float)))
    gold = [str(x) for x in g.loc[g["is_answer"].astype(bool), "candidate"]]
    if set(art) != set(cands):
        return [("gold_differs_from_artifact", f"candidates {sorted(set(cands) - set(art))} are not the artifact's "
                                               f"for target {target}")]
    if gold != [answer]:
        return [("gold_differs_from_artifact", f"the answer {answer} is not the artifact's ({', '.join(gold)}) "
                                               f"for target {target}")]
    out = []
    why = _argmax_failure([art[c] for c in cands], a, cands, f"{col} (the artifact)")
    if why:
        out.append(("gold_not_argmax", why))
    if "seed_cosines" in g:
        out += [("gold_not_argmax", why) for why in _per_training_failures(g, cands, a)]
    if isinstance(scores, list) and any(abs(float(s) - art[c]) > 1e-6 for s, c in zip(scores, cands)):
        out.append(("evidence_differs_from_artifact", f"the question's {col} values differ from the artifact's"))
    return out


def _table_checks(path: str, q: dict, ev: Evidence, m: str, gold: measures.Gold, cands: list[str], a: int,
                  violation) -> list:
    """The checks of a gold read from a table artifact: against the question's own scores, the
    recomputed cosines, the embeddings and the artifact's rows for its target."""
    target = _target_of(q, gold)
    scores = (q.get("evidence") or {}).get(gold.score)
    out = [violation(path, q["qid"], "gold_not_argmax", why)
           for why in _own_evidence_failures(ev, m, gold, target, scores, cands, a)]
    g = ev.tables.get(m, {}).get(target) if m in ev.tables else None
    if gold.recompute == measures.EMBEDDINGS:
        out += _embedding_checks(path, q, ev, m, target, cands, a, g, violation)
    if m in ev.tables:
        out += [violation(path, q["qid"], check, detail)
                for check, detail in _artifact_failures(g, gold.score, target, scores, cands, a)]
    return out


def _rule_failures(q: dict, ev: Evidence, cands: list[str], a: int) -> list[tuple[str, str]]:
    """(check, detail) of each way an association-rule question disagrees with the mined rules: its
    gold is not the consequent of a rule with lift > 1, its support or confidence is not the
    rule's, a negative is a consequent of a rule with the same antecedents."""
    evidence, answer = q.get("evidence") or {}, cands[a]
    ants = tuple(sorted(map(str, (q.get("context") or {}).get("antecedents") or [])))
    out = []
    rule = ev.rules.get((ants, answer))
    if rule is None or rule[2] <= 1.0:
        why = "is not a mined rule" if rule is None else f"has lift {rule[2]:.3f} <= 1"
        out.append(("rule_not_in_artifact", f"{'+'.join(ants)} -> {answer} {why}"))
    else:
        for k, v in zip(("support", "confidence"), rule[:2]):
            if k in evidence and abs(float(evidence[k]) - v) > 1e-9:
                out.append(("evidence_differs_from_artifact", f"{k} {float(evidence[k]):.4f} in the question, "
                                                              f"{v:.4f} in the rules"))
    for n in cands[:a] + cands[a + 1:]:
        if n in ev.consequents.get(ants, set()):
            out.append(("negative_is_rule_consequent", f"the negative {n} is a consequent of a rule with antecedent "
                                                       f"{'+'.join(ants)}"))
    return out


def gold_checks(path: str, q: dict, ev: Evidence, violation) -> list:
    """The re-derivation checks of one HitRate@1 question (answer_index already in range).
    `violation(path, qid, check, detail)` makes a Violation."""
    m = q.get("measure") or q["qid"].split("/")[-2]
    cands, a = [str(c) for c in q["candidates"]], q["answer_index"]
    gold = ev.golds.get(m)
    if gold is None:
        return []
    if gold.recipe == measures.TABLE:
        return _table_checks(path, q, ev, m, gold, cands, a, violation)
    if gold.recipe == measures.RULE and ev.rules is not None:
        return [violation(path, q["qid"], check, detail) for check, detail in _rule_failures(q, ev, cands, a)]
    return []
