"""The per-question and per-prompt hard checks of the audit.

Each check returns `Violation`s; one is enough to fail the build. What "the user's history" is
depends on who the question is about:

| question | candidates | a negative must not be | the answer must not be in |
|---|---|---|---|
| knowledge (`user_id`, leave-one-out) | items | an item the user ever interacted with | the shown history |
| knowledge | values | a value of the positive item | (the positive item not in the shown history) |
| `target_user` (neu_user2items) | items | an item of the target user's whole history | the shown history |
| `target_user` (mem_user_user) | users | the target user | - |
| `target_item` (neu_item2users) | users | a user who interacted with the target item | - |
| `target_item` (mem_item_item) | items | the target item | - |
| `antecedents` (assoc_rule) | items | an antecedent item | the antecedents |
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from lrworld.audit import golds
from lrworld.prompts.variants import permutes
from lrworld.core.cells import strings
from lrworld.core.display import display_key
from lrworld.core.io import sha256_text
from lrworld.questions import enforced

CHECKS = ("answer_index_out_of_range", "answer_equals_negative", "negative_in_history", "positive_in_shown_history",
          "distractor_true_of_positive", "answer_not_true_of_positive", "gold_not_target_item",
          "same_work_as_target", "duplicate_work_options", "duplicate_display_text",
          "candidate_missing_in_prompt", "prompt_disagrees_with_question", "slot_uniformity",
          "equal_slot_sequences", "gold_not_witnessed", "distractor_witnessed_of_positive", "tie_flag_wrong",
          "prompt_sha256_stale", "gold_not_in_raw_metadata", "distractor_in_raw_metadata", *golds.CHECKS)

# Texts a missing value turns into on its way to a prompt.
_EMPTY = {"", "nan", "none", "null"}


@dataclass(frozen=True)
class Violation:
    file: str
    qid: str
    check: str
    detail: str

    def line(self) -> str:
        return f"{self.file}: {self.qid}: {self.check}: {self.detail}"


class Known:
    """Who interacted with what, for the ids the questions name (never a set per entity of the
    whole data)."""

    def __init__(self, interactions: pd.DataFrame, questions: list[dict]):
        users, items = set(), set()
        for q in questions:
            ctx = q.get("context") or {}
            if "user_id" in q:
                users.add(str(q["user_id"]))
            if "target_user" in ctx:
                users.add(str(ctx["target_user"]))
            if "target_item" in ctx and q["candidate_kind"] == "user":
                items.add(str(ctx["target_item"]))
        u = interactions[interactions["user_id"].isin(users)]
        i = interactions[interactions["item_id"].isin(items)]
        self.items_of = {k: set(g) for k, g in u.groupby("user_id", sort=False)["item_id"]}
        # (user, item) -> when they met, for the windows' tie flags
        self.stamp = dict(zip(zip(u["user_id"].astype(str), u["item_id"].astype(str)), u["timestamp"]))
        self.users_of = {k: set(g) for k, g in i.groupby("item_id", sort=False)["user_id"]}


class Truths:
    """What items.parquet says is true of each item for one field: item id -> keys of its values,
    compared as the builder compares them (`enforced.value_key`: people in any word order)."""

    def __init__(self, items: pd.DataFrame, field: str):
        self.key = enforced.value_key(field)
        self.of = {str(i): {self.key(x) for x in strings(v)} for i, v in zip(items["item_id"], items[field])}

    def true_of(self, value, item: str) -> bool:
        return self.key(value) in self.of.get(item, set())


def field_keys(items: pd.DataFrame, field: str) -> Truths:
    """What is true of each item for `field` (Truths)."""
    return Truths(items, field)


class Witnessed:
    """What facts.parquet says of one field: per item, the keys of the values a gold may be (agreed
    by every covering source, the only source's, or for a field not compared across sources the
    first source's) and of every value any source gives."""

    GOLD = ("agreed", "single_source", "first_source")
    # (gold check, distractor check, what the table is): facts.parquet, or the facts made again
    # from the raw files
    TABLE = ("gold_not_witnessed", "distractor_witnessed_of_positive", "facts.parquet")
    RAW = ("gold_not_in_raw_metadata", "distractor_in_raw_metadata", "the raw data and metadata files")

    def __init__(self, facts: pd.DataFrame, field: str, names: tuple[str, str, str] = TABLE):
        self.names = names
        self.key = enforced.value_key(field)
        f = facts[facts["field"] == field]
        self.gold: dict[str, set[str]] = {}
        self.any: dict[str, set[str]] = {}
        for i, v, st in zip(f["item_id"].astype(str), f["value"], f["status"]):
            k = self.key(v)
            self.any.setdefault(i, set()).add(k)
            if st in self.GOLD:
                self.gold.setdefault(i, set()).add(k)

    def check(self, answer: str, negs: list[str], positive: str, bad) -> None:
        gold, distractor, table = self.names
        if self.key(answer) not in self.gold.get(positive, set()):
            bad(gold, f"{answer!r} is not a witnessed value of item {positive} in {table}")
        for n in negs:
            if self.key(n) in self.any.get(positive, set()):
                bad(distractor, f"the distractor {n!r} is a value a source gives item {positive} ({table})")

    def violations(self, path: str, q: dict) -> list[Violation]:
        """This table's checks of one value question (answer_index in range)."""
        out = []
        cands, a = [str(c) for c in q["candidates"]], q["answer_index"]
        self.check(cands[a], cands[:a] + cands[a + 1:], str(q["target_item"]),
                   lambda check, detail: out.append(Violation(path, q["qid"], check, detail)))
        return out


def _shown(q: dict) -> list[str]:
    """The items the prompt shows besides the options: the history, or a rule's antecedents."""
    ctx = q.get("context") or {}
    return [str(x) for x in (q.get("history") or ctx.get("history") or ctx.get("antecedents") or [])]


def value_checks(q: dict, answer: str, negs: list[str], truths: Truths | None, witnessed: Witnessed | None,
                 bad) -> None:
    """A value question: the positive is not shown, the gold is true of it, no distractor is."""
    positive = str(q["target_item"])
    if positive in _shown(q):
        bad("positive_in_shown_history", f"the positive item {positive} is in the shown history")
    if truths is None or not truths.true_of(answer, positive):
        bad("answer_not_true_of_positive", f"{answer!r} is not a value of item {positive}")
    for n in negs:
        if truths is not None and truths.true_of(n, positive):
            bad("distractor_true_of_positive", f"the distractor {n!r} is a value of item {positive}")
    if witnessed is not None:
        # the gold re-read from the witnessed facts, not only from items.parquet
        witnessed.check(answer, negs, positive, bad)


def tie_checks(q: dict, known: Known, bad) -> None:
    """A leave-one-out question's `tied_positive` is the tie rule (`enforced.tied`) on the
    interactions: the positive and the last shown item at one timestamp."""
    hist = q.get("history") or []
    if "tied_positive" not in q or "user_id" not in q or not hist:
        return
    user = str(q["user_id"])
    a, b = known.stamp.get((user, str(q["target_item"]))), known.stamp.get((user, str(hist[-1])))
    if a is None or b is None:
        return
    if bool(q["tied_positive"]) != enforced.tied(a, b):
        bad("tie_flag_wrong", f"tied_positive is {q['tied_positive']} but the positive {q['target_item']} is at "
                              f"{a} and the last shown item {hist[-1]} at {b}")


def item_answer_checks(q: dict, answer: str, bad) -> None:
    """An item question: the answer is not shown, and is the user's next item where one is named."""
    if answer in _shown(q):
        bad("positive_in_shown_history", f"the answer {answer} is in the shown history")
    if "target_item" in q and answer != str(q["target_item"]):
        bad("gold_not_target_item", f"the answer {answer} is not the user's next item {q['target_item']}")


def work_checks(q: dict, cands: list[str], works: dict[str, str], bad) -> None:
    """No two options one work to a reader, and none the work of the target or an antecedent."""
    ctx = q.get("context") or {}
    keys = [enforced.work_key(c, works) for c in cands]
    for j, k in enumerate(keys):
        other = next((cands[i] for i in range(j) if keys[i] == k), None)
        if other is not None:
            bad("duplicate_work_options", f"candidates {other} and {cands[j]} are one work ({k!r})")
    against = [str(ctx["target_item"])] if "target_item" in ctx else [str(x) for x in ctx.get("antecedents") or []]
    for t in against:
        for c in cands:
            if c != t and enforced.same_work(c, t, works):
                bad("same_work_as_target", f"candidate {c} is the same work as {t} ({enforced.work_key(t, works)!r})")


def history_checks(q: dict, cands: list[str], negs: list[str], known: Known, works: dict[str, str] | None,
                   bad) -> None:
    """No negative the question's user met (by id or as the same work, `enforced.Met`), no candidate
    user who met the target item, never the target itself among the candidates."""
    ctx = q.get("context") or {}
    kind = q["candidate_kind"]
    if "user_id" in q or ("target_user" in ctx and kind == "item"):
        user = str(q.get("user_id", ctx.get("target_user")))
        met = enforced.Met(known.items_of.get(user, set()), works)
        for n in negs:
            first = met.leaked_by(n)
            if first == n:
                bad("negative_in_history", f"the negative item {n} is in user {user}'s history")
            elif first is not None:
                bad("negative_in_history", f"the negative item {n} is the same work as item {first} of user "
                                           f"{user}'s history")
    elif "target_user" in ctx:
        if str(ctx["target_user"]) in cands:
            bad("negative_in_history", f"the target user {ctx['target_user']} is a candidate")
    elif "target_item" in ctx and kind == "user":
        users = known.users_of.get(str(ctx["target_item"]), set())
        for n in negs:
            if n in users:
                bad("negative_in_history", f"the negative user {n} interacted with item {ctx['target_item']}")
    elif "target_item" in ctx:
        if str(ctx["target_item"]) in cands:
            bad("negative_in_history", f"the target item {ctx['target_item']} is a candidate")
    elif "antecedents" in ctx:
        for n in negs:
            if n in _shown(q):
                bad("negative_in_history", f"the negative item {n} is an antecedent")


def question_checks(path: str, q: dict, known: Known, truths: Truths | None = None,
                    works: dict[str, str] | None = None, evidence: golds.Evidence | None = None,
                    witnessed: Witnessed | None = None) -> list[Violation]:
    """The checks one question record must pass. `truths`: field_keys of the measure's field
    (value questions); `works`: item id -> what a reader takes it for (render.item_keys: two ids
    that read alike are one work); `evidence`: what the HitRate@1 golds are re-derived from
    (golds.py)."""
    out = []

    def bad(check, detail):
        out.append(Violation(path, q["qid"], check, detail))

    cands = [str(c) for c in q["candidates"]]
    a = q["answer_index"]
    if not (isinstance(a, int) and 0 <= a < len(cands)):
        bad("answer_index_out_of_range", f"answer_index {a!r} is not a slot of {len(cands)} candidates")
        return out
    answer, negs = cands[a], cands[:a] + cands[a + 1:]
    if answer in negs:
        bad("answer_equals_negative", f"the answer {answer!r} is also a negative")
    tie_checks(q, known, bad)
    if q["candidate_kind"] == "value":
        value_checks(q, answer, negs, truths, witnessed, bad)
        return out
    if q["candidate_kind"] == "item":
        item_answer_checks(q, answer, bad)
        if works:
            work_checks(q, cands, works, bad)
    if evidence is not None and q.get("qtype") == "hit10":
        out += golds.gold_checks(path, q, evidence, Violation)
    history_checks(q, cands, negs, known, works, bad)
    return out


def prompt_checks(path: str, p: dict, q: dict | None) -> list[Violation]:
    """The checks one prompt record must pass against its question."""
    out = []

    def bad(check, detail):
        out.append(Violation(path, p.get("qid", "?"), check, detail))

    if q is None:
        bad("prompt_disagrees_with_question", "no question with this qid")
        return out
    labels, texts = list(p.get("labels") or []), [str(t) for t in p.get("candidates") or []]
    if not (len(labels) == len(texts) == len(q["candidates"])):
        bad("prompt_disagrees_with_question", f"{len(labels)} labels and {len(texts)} candidate texts for "
                                              f"{len(q['candidates'])} candidates")
        return out
    meta = p.get("variant_meta") or {}
    moved = permutes(p.get("variant", "zero_shot"))
    if moved and not isinstance(meta.get("permutation"), list):
        bad("prompt_disagrees_with_question", f"variant {p.get('variant')!r} permutes the candidates but its "
                                              f"metadata has no permutation")
        return out
    expected = meta["permutation"].index(q["answer_index"]) if moved else q["answer_index"]
    if p["answer_index"] != expected:
        bad("prompt_disagrees_with_question", f"answer_index {p['answer_index']} in the prompt, {expected} expected")
    prompt = p.get("prompt", "")
    if p.get("prompt_sha256") != sha256_text(prompt):
        # the hash a response cache and the provenance key on: a prompt edited after rendering
        bad("prompt_sha256_stale", f"prompt_sha256 {str(p.get('prompt_sha256'))[:12]}... is not the sha256 of the "
                                   f"prompt text ({sha256_text(prompt)[:12]}...)")
    for lab, txt in zip(labels, texts):
        if txt.strip().casefold() in _EMPTY:
            bad("candidate_missing_in_prompt", f"candidate {lab} has no text")
        elif p.get("labels_shown", True):
            if not any(f"{lab}{sep}{txt}" in prompt for sep in (". ", ": ")):
                bad("candidate_missing_in_prompt", f"the line of candidate {lab} ({txt[:40]!r}) is not in the prompt")
        elif txt not in prompt:
            bad("candidate_missing_in_prompt", f"candidate {lab} ({txt[:40]!r}) is not in the prompt")
    keys = [display_key(t) for t in texts]
    a = p["answer_index"]
    if 0 <= a < len(keys) and keys.count(keys[a]) > 1:
        other = next(labels[j] for j, k in enumerate(keys) if k == keys[a] and j != a)
        bad("answer_equals_negative", f"the answer {labels[a]} reads like negative {other}: {texts[a][:60]!r}")
    elif len(set(keys)) < len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        bad("duplicate_display_text", "candidates " + ", ".join(lab for lab, k in zip(labels, keys) if k == dup)
            + f" read the same: {dup[:60]!r}")
    return out
