"""Knowledgeability questions (MCQ, 4 options): predict a field of the next item, not the item.

Two kinds of builder:

- **field values** (`kg_*`, `attr_*`, `taxo_*`): the answer is a value of the positive item's field
  (its genre, director, brand, leaf category, ...); the three negatives are other values of the
  same field, drawn uniformly from the field's distinct values over all items and never among the
  positive item's own values, so no distractor is also correct. Values listed in
  `questions.exclude_values` for the field (a format such as "IMAX", a placeholder such as
  "(no genres listed)") are neither answers nor distractors.
- **item texts** (`text_logline`, `multimodal`): the history and the 4 candidates are items shown
  only by a text field (the logline, or an image caption); the negatives are random items that have
  that text, are not among the items the user ever interacted with (the whole history, not only the
  shown window), and whose text differs from the positive's and from each other's (paper §3
  (i)-(j), Table 9).

Missing values are never an answer or a negative; every skipped question and every rejected negative
draw is counted in the report under its reason. Each question draws from its own streams, named by
the dataset, the measure and the user (`seeding`): one question's draws do not depend on any other.
"""

from __future__ import annotations

from collections import Counter
from inspect import signature
from typing import Mapping, NamedTuple

import numpy as np
import pandas as pd

from lrworld.core import names as facts
from lrworld.questions import enforced
from lrworld.questions.builders import builder
from lrworld.core.display import display_key
from lrworld.questions.measures import MCQ, Measure
from lrworld.core.seeding import answer_slot, place_answer, rng_for
from lrworld.questions.distractors import Debias, GoldCap, Ranks, matched
from lrworld.questions.windows import Window



def _values(v) -> list[str]:
    if isinstance(v, (list, tuple, np.ndarray)):
        out = [str(x).strip() for x in v if isinstance(x, str) and x.strip()]
        return list(dict.fromkeys(out))
    if isinstance(v, str) and v.strip():
        return [v.strip()]
    return []


def _text(v) -> str | None:
    if isinstance(v, str) and v.strip():
        return " ".join(v.split())
    return None


def _question(measure: Measure, dataset: str, w: Window, candidates, slot, seed, kind, **extra) -> dict:
    q = {
        "qid": f"{dataset}/{measure.id}/u{w.user_id}",
        "dataset": dataset,
        "measure": measure.id,
        "qtype": measure.qtype,
        "user_id": w.user_id,
        "history": list(w.history),
        "target_item": w.positive,
        "candidate_kind": kind,
        "candidates": candidates,
        "answer_index": slot,
        "seed": seed,
        "tied_positive": w.tied,
    }
    q.update(extra)
    return q


def _streams(seed: int, dataset: str, measure: Measure, w: Window):
    """(draw generator, answer slot) of one question, named by its user."""
    return (rng_for(seed, dataset, measure.id, "negatives", w.user_id),
            answer_slot(seed, dataset, measure.id, w.user_id, measure.n_candidates))


def build(measure: Measure, dataset: str, windows: list[Window], items: pd.DataFrame, seed: int,
          item_texts: dict[str, str] | None = None, limit: int | None = None,
          exclude: list[str] | None = None, debias: Debias | None = None,
          counts: Mapping[str, int] | None = None) -> tuple[list[dict], dict]:
    """Questions for `windows` in order, stopping after `limit` questions (the skip counts then cover
    the windows examined; the questions are the same as building all and keeping the first `limit`).
    `exclude`: values of the measure's field that are never shown (field-value measures); `debias`:
    `questions.distractors` and `max_gold_share` (lrworld/questions/distractors.py); `counts` (item id
    -> interactions): with matched distractors, the interactions they are matched on too, where the
    builder takes them."""
    try:
        build_fn = builder(measure)
    except ValueError as exc:
        raise ValueError(f"{dataset}/{measure.id}: {exc.args[0]}") from None
    extra = {"debias": debias} if debias is not None and debias != Debias() else {}
    if extra and debias.matched and counts is not None and "counts" in signature(build_fn).parameters:
        extra["counts"] = counts
    return build_fn(measure, dataset, windows, items, seed, item_texts=item_texts, limit=limit, exclude=exclude,
                    **extra)


def item_title(measure, dataset, windows, items, seed, item_texts=None, limit=None, exclude=None, debias=None,
               counts=None):
    # <history, next-item> as an MCQ (mini LastFM): the items are shown by their name.
    return build_item_text(measure, dataset, windows, items, seed, None, field="title", limit=limit, debias=debias,
                           counts=counts)


def item_text(measure, dataset, windows, items, seed, item_texts=None, limit=None, exclude=None, debias=None,
              counts=None):
    return build_item_text(measure, dataset, windows, items, seed, item_texts, limit=limit, debias=debias,
                           counts=counts)


def field_values(measure, dataset, windows, items, seed, item_texts=None, limit=None, exclude=None, debias=None,
                 counts=None):
    return build_field_values(measure, dataset, windows, items, seed, limit=limit, exclude=exclude, debias=debias,
                              counts=counts)


def _works(items: pd.DataFrame) -> dict[str, str] | None:
    """item id -> what a reader takes it for (prompts.render.item_keys), where items have titles."""
    from lrworld.prompts.render import item_keys

    return item_keys(items) if {"title", "year"} <= set(items.columns) else None


def _by_item(items: pd.DataFrame, column: str, value=lambda v: v, keep=lambda v: True) -> dict:
    """{item id: value(cell)} of an optional items column ({} where ingest wrote none)."""
    if column not in items.columns:
        return {}
    return {str(i): value(v) for i, v in zip(items["item_id"], items[column]) if keep(v)}


def _item_values(items: pd.DataFrame, field: str, key, exclude: list[str] | None) -> tuple[dict, dict, Counter]:
    """(item id -> its values as read, item id -> its values less the excluded ones, excluded value ->
    how many times it was removed from an item)."""
    names = field in facts.NAME_FIELDS
    excluded_keys = {key(v) for v in exclude or []}
    raw = {str(i): [facts.clean_name(x) for x in _values(v)] if names else _values(v)
           for i, v in zip(items["item_id"], items[field])}
    excluded = Counter(x for vs in raw.values() for x in vs if key(x) in excluded_keys)
    values = {i: [x for x in vs if key(x) not in excluded_keys] for i, vs in raw.items()}
    return raw, values, excluded


class _Pool(NamedTuple):
    """The values a field's distractors are drawn from: one spelling per value key."""
    spelling: dict[str, str]  # value key -> its most frequent spelling (ties: alphabetical)
    values: list[str]  # the spellings, sorted
    keys: list[str]  # their value keys, in the same order
    merged: int  # spellings read that are not a key's one spelling
    ranks: Ranks  # a value's count: the items that carry it (what a label-frequency answerer reads)


def _value_pool(values: dict[str, list[str]], key) -> _Pool:
    """The pool of the values items carry (`values`: item id -> its values)."""
    freq = Counter(x for vs in values.values() for x in vs)
    spelling: dict[str, str] = {}
    for x in sorted(freq, key=lambda x: (-freq[x], x)):
        spelling.setdefault(key(x), x)
    pool = sorted(spelling.values())
    ranks = Ranks(Counter(spelling[key(x)] for vs in values.values() for x in dict.fromkeys(vs)), pool)
    return _Pool(spelling, pool, [key(v) for v in pool], len(freq) - len(pool), ranks)


def _weighted_values(values: dict[str, list[str]], pool: "_Pool", counts: Mapping[str, int]) -> tuple[Ranks, Counter]:
    """(each pool value ranked by the interactions of the items carrying it, an empty usage count)."""
    key_of = {v: k for v, k in zip(pool.values, pool.keys)}
    by_key = Counter()
    for item, vs in values.items():
        for v in dict.fromkeys(vs):
            by_key[v] += int(counts.get(item, 0))
    spelled = Counter()
    for v, n in by_key.items():
        spelled[pool.spelling.get(key_of.get(v, v), v)] += n
    return Ranks(spelled, pool.values, log=True), Counter()


# a field has few values when the questions asked are this many times its values or more: each value
# is then the gold of several questions, and distractors are drawn as often as golds are
FEW_VALUES = 4


def _as_golds(measure: Measure, windows: list[Window], values: dict[str, list[str]], pool: "_Pool", key,
              limit: int | None) -> dict[str, float] | None:
    """value spelling -> how often to draw it as a distractor, where the field has few values for the
    questions asked (else None): how often it is a window's answer (a random one of the positive's
    values counts 1 / their number, the first 1), over how often it may be drawn at all (a value of
    the positive never is), so that each value is shown about `options` times per question it answers."""
    if limit is None or len(pool.values) * FEW_VALUES > limit:
        return None
    answers, carried, n = Counter(), Counter(), 0
    for w in windows:
        own = values.get(w.positive, [])
        if not own:
            continue
        n += 1
        picks = own if measure.answer_policy == "random" else own[:1]
        for v in picks:
            answers[pool.spelling.get(key(v), v)] += 1 / len(picks)
        carried.update({pool.spelling.get(key(v), v) for v in own})
    return {v: a / max(1e-9, 1 - carried[v] / n) for v, a in answers.items()}


def _no_value_reason(item: str, raw: dict, dropped: dict, titles: dict, examples: dict[str, list[str]]) -> str:
    """Why a positive without a value to ask makes no question. A target its covering sources
    disagree on is listed in `examples` under its reason, with what each source said."""
    if item in dropped:
        # the sources that cover the film name different people: no gold can be trusted
        reason, _, detail = dropped[item].partition(": ")
        listed = examples.setdefault(reason, [])
        entry = f"item {item} {titles.get(item, '')!r}: {detail}"
        if entry not in listed:
            listed.append(entry)
        return reason
    return "positive_has_only_excluded_values" if raw.get(item) else "positive_has_no_value"


def _answer_value(measure: Measure, own: list[str], rng: np.random.Generator) -> str:
    """The value asked of the positive: a random one of its values, or its first (the main director,
    the lead actor), as the measure's `answer_policy` says."""
    if measure.answer_policy == "random":
        return own[int(rng.integers(len(own)))]
    return own[0]


def _value_negatives(eligible: list[str], gold: str, n_neg: int, ranks: Ranks, matched_draw: bool,
                     rng: np.random.Generator, weighted: Ranks | None = None,
                     used: Counter | None = None, as_golds: Mapping[str, float] | None = None) -> list[str] | None:
    """`n_neg` distractors out of `eligible`: matched to the gold's label frequency (and, with
    `weighted`, to the interactions of the items carrying it: how often a value is a next item's,
    so the gold's), or uniform. `as_golds` (value -> how often it is a window's answer; a field of a
    few values, each the gold of many questions): drawn in proportion to it instead, so each value
    is an option about as often, per question it answers, as any other and the other questions'
    golds and options tell nothing. None: no matched draw."""
    if matched_draw and as_golds is not None:
        w = np.asarray([as_golds.get(v, 0.0) for v in eligible], dtype=float)
        if (w > 0).sum() < n_neg:
            return None
        return [eligible[i] for i in rng.choice(len(eligible), size=n_neg, replace=False, p=w / w.sum())]
    if matched_draw:
        drawn = matched([eligible[i] for i in rng.permutation(len(eligible))], gold, n_neg, ranks, rng,
                        closeness=weighted, used=used)
        return None if drawn is None else drawn[0]
    return [eligible[i] for i in rng.choice(len(eligible), size=n_neg, replace=False)]


def build_field_values(measure: Measure, dataset: str, windows: list[Window], items: pd.DataFrame, seed: int,
                       limit: int | None = None, exclude: list[str] | None = None,
                       debias: Debias | None = None, counts: Mapping[str, int] | None = None) -> tuple[list[dict], dict]:
    field = measure.field
    debias = debias or Debias()
    if field not in items.columns:
        raise ValueError(f"{dataset}/{measure.id}: items have no column {field!r}; configure the metadata source")
    # names compare as people ("Scott, Ridley" is "Ridley Scott"), other values as texts
    key = enforced.value_key(field)
    raw, values, excluded = _item_values(items, field, key, exclude)
    # names a covering source gave for the item but not agreed on: never one of its distractors
    also = _by_item(items, f"{field}_other", lambda v: [key(x) for x in _values(v)])
    dropped = _by_item(items, f"{field}_dropped", keep=lambda v: isinstance(v, str))
    witnesses = _by_item(items, f"{field}_witnesses")
    backers = _by_item(items, f"{field}_sources")
    titles = _by_item(items, "title", str) if dropped else {}
    pool = _value_pool(values, key)
    n_neg = measure.n_candidates - 1
    skipped, skip_examples = Counter(), {}
    kept_out = 0
    questions, used_witnesses, used_sources = [], Counter(), Counter()
    cap = GoldCap(debias.cap(limit, MCQ))
    weighted, used = _weighted_values(values, pool, counts) if counts is not None else (None, None)
    as_golds = _as_golds(measure, windows, values, pool, key, limit) if counts is not None else None
    for w in windows:
        if limit is not None and len(questions) >= limit:
            break
        own = values.get(w.positive, [])
        if not own:
            skipped[_no_value_reason(w.positive, raw, dropped, titles, skip_examples)] += 1
            continue
        rng, slot = _streams(seed, dataset, measure, w)
        answer = _answer_value(measure, own, rng)
        own_keys = {key(v) for v in own} | set(also.get(w.positive, []))
        eligible = [v for v, k in zip(pool.values, pool.keys) if k not in own_keys]
        # every value of the positive is kept out of the draw: a distractor is never also true
        kept_out += len(pool.values) - len(eligible)
        if len(eligible) < n_neg:
            skipped["too_few_distinct_values"] += 1
            continue
        if cap.full(key(answer)):
            skipped["gold_share_cap"] += 1
            continue
        negatives = _value_negatives(eligible, pool.spelling.get(key(answer), answer), n_neg, pool.ranks,
                                     debias.matched, rng, weighted, used, as_golds)
        if negatives is None:
            skipped["no_matched_distractors"] += 1
            continue
        cap.take(key(answer))
        if used is not None:
            used.update([pool.spelling.get(key(answer), answer), *negatives])
        questions.append(_question(measure, dataset, w, place_answer(answer, negatives, slot), slot, seed, "value"))
        used_witnesses[int(witnesses.get(w.positive, 1) or 1)] += 1
        used_sources["+".join(backers.get(w.positive, [])) or "items"] += 1
    witnessed = {"witnesses": {str(k): used_witnesses[k] for k in sorted(used_witnesses)},
                 "sources": dict(sorted(used_sources.items())), "dropped_targets": skip_examples}
    return questions, {"skipped": dict(skipped), "facts": witnessed,
                       "values_true_of_positive_kept_out": kept_out, "value_pool": len(pool.values),
                       "answer_policy": measure.answer_policy, "values_merged_by_spelling": pool.merged,
                       "excluded_values": {"field": field, "values": sorted(exclude or []),
                                           "item_values_removed": dict(sorted(excluded.items()))}}


def _shown_texts(measure: Measure, dataset: str, items: pd.DataFrame, item_texts: dict[str, str] | None,
                 field: str) -> dict[str, str]:
    """item id -> the text it is shown by (items without one left out)."""
    if item_texts is None:
        if field not in items.columns:
            raise ValueError(f"{dataset}/{measure.id}: items have no column {field!r}; configure the metadata "
                             f"source")
        item_texts = {str(i): _text(v) for i, v in zip(items["item_id"], items[field])}
    return {k: t for k, v in item_texts.items() if (t := _text(v))}


def _unshowable(w: Window, texts: dict[str, str], cap: GoldCap) -> str | None:
    """Why window `w` makes no question before any draw, or None."""
    if texts.get(w.positive) is None:
        return "positive_has_no_text"
    if any(h not in texts for h in w.history):
        # A history item without text cannot be shown: the question would silently be shorter.
        return "history_item_has_no_text"
    if cap.full(w.positive):
        return "gold_share_cap"
    return None


def _uniform_items(order, n_neg: int, met: enforced.Met, shown: set, keys: dict[str, str],
                   works: dict[str, str] | None, seen_keys: set, seen_works: set, rejected: Counter) -> list[str]:
    """Up to `n_neg` items of `order` that are wrong next items and read unlike every other option;
    each item passed over is counted in `rejected` under its reason."""
    negatives = []
    for it in order:
        first = met.leaked_by(it)
        if first is not None:
            # an item the user interacted with (or one that reads like it), shown or earlier, is not
            # a wrong next item
            rejected["in_shown_window" if first in shown else "in_earlier_history"] += 1
            continue
        if keys[it] in seen_keys:
            # an item whose text reads like the positive's (or another negative's) would be a
            # second correct-looking option
            rejected["same_text_as_another_option"] += 1
            continue
        if enforced.work_key(it, works) in seen_works:
            # two options a reader takes for one work
            rejected["same_work_as_another_option"] += 1
            continue
        negatives.append(it)
        seen_keys.add(keys[it])
        seen_works.add(enforced.work_key(it, works))
        if len(negatives) == n_neg:
            break
    return negatives


def _negative_items(w: Window, n_neg: int, with_text: list[str], keys: dict[str, str], works: dict[str, str] | None,
                    lengths: Ranks | None, rng: np.random.Generator, rejected: Counter,
                    popular: Ranks | None = None, used: Counter | None = None) -> list[str] | None:
    """The negatives of window `w`: matched by text length where `lengths` is given (and by the
    items' interactions with `popular`, the least shown first with `used`), else uniform. None: no
    matched draw."""
    shown = set(w.history) | {w.positive}
    met = enforced.Met(set(w.known) | shown, works)
    seen_keys = {keys[w.positive]}
    if lengths is None:
        seen_works = {enforced.work_key(w.positive, works)}
        order = (with_text[i] for i in rng.permutation(len(with_text)))
        return _uniform_items(order, n_neg, met, shown, keys, works, seen_keys, seen_works, rejected)
    order = [with_text[i] for i in rng.permutation(len(with_text)) if met.leaked_by(with_text[i]) is None]
    if popular is not None:
        drawn = matched(order, w.positive, n_neg, popular, rng, key=keys.get, taken=seen_keys, lengths=lengths,
                        used=used)
    else:
        drawn = matched(order, w.positive, n_neg, lengths, rng, key=keys.get, taken=seen_keys)
    if drawn is None:
        return None
    rejected["same_text_as_another_option"] += drawn[1]
    return drawn[0]


def build_item_text(measure: Measure, dataset: str, windows: list[Window], items: pd.DataFrame, seed: int,
                    item_texts: dict[str, str] | None = None, field: str | None = None,
                    limit: int | None = None, debias: Debias | None = None,
                    counts: Mapping[str, int] | None = None) -> tuple[list[dict], dict]:
    """Items shown only by a text field. `item_texts` (item id -> text) overrides the items column
    (captions come from their own artifact, not from items.parquet). `debias`: matched distractors
    are matched by text length (lrworld/questions/distractors.py), the cap counts the positive."""
    debias = debias or Debias()
    field = field or measure.field
    texts = _shown_texts(measure, dataset, items, item_texts, field)
    keys = {k: display_key(t) for k, t in texts.items()}
    with_text = sorted(texts)
    # what a reader takes each item for, whatever text the question shows (the same-work rule)
    works = _works(items)
    # which source gave each positive's text (the facts table's; captions have their own artifact)
    backers = _by_item(items, f"{field}_sources")
    used_sources = Counter()
    n_neg = measure.n_candidates - 1
    skipped, rejected = Counter(), Counter()
    questions = []
    lengths = Ranks({k: len(t) for k, t in texts.items()}, with_text) if debias.matched else None
    # with counts, the items behind the texts are matched by interactions too (a popular film's logline)
    popular = Ranks({k: counts.get(k, 0) for k in with_text}, with_text, log=True) if lengths and counts is not None else None
    used = Counter() if popular is not None else None
    cap = GoldCap(debias.cap(limit, MCQ))
    for w in windows:
        if limit is not None and len(questions) >= limit:
            break
        reason = _unshowable(w, texts, cap)
        if reason is not None:
            skipped[reason] += 1
            continue
        rng, slot = _streams(seed, dataset, measure, w)
        negatives = _negative_items(w, n_neg, with_text, keys, works, lengths, rng, rejected, popular, used)
        if negatives is None:
            skipped["no_matched_distractors"] += 1
            continue
        if len(negatives) < n_neg:
            skipped["too_few_items_with_text"] += 1
            continue
        cap.take(w.positive)
        if used is not None:
            used.update([w.positive, *negatives])
        candidates = place_answer(w.positive, negatives, slot)
        used_sources["+".join(backers.get(w.positive, [])) or "items"] += 1
        shown = list(w.history) + candidates
        questions.append(_question(measure, dataset, w, candidates, slot, seed, "item", item_field=field,
                                   item_texts={it: texts[it] for it in shown}))
    # an item's text comes from one source (texts are never compared across sources)
    witnessed = {"witnesses": {"1": len(questions)} if questions else {}, "sources": dict(sorted(used_sources.items()))}
    return questions, {"skipped": dict(skipped), "facts": witnessed,
                       "negatives_rejected": dict(rejected),
                       "items_with_text": len(with_text)}
