"""The construction filtered against its negative control (`questions.validity`; docs/groundtruth.md,
"A construction that passes its controls").

A builder first makes `overdraw` times the questions asked, in its own seeded order. Then, in the
manner of AFLite (Sakaguchi et al., WinoGrande; Le Bras et al. 2020), questions are dropped until
no knowledge-free answerer is above chance on what is kept:

- the gold-rate cap: no entity is the gold of more questions than an option's share of the
  questions that show it allows, 1 / options plus two binomial standard deviations (`gold_cap`,
  counted on the questions kept: a gold that no other question shows is the gold once); the latest
  question of an entity over the cap is dropped;
- the learned negative control (lrworld/questions/learned.py), cross-validated by question, and
  every shortcut rule (lrworld/models/shortcut.py), over the questions kept: while more than
  `per_measure` are kept and one of them is above chance, the questions it answers most surely
  (the held-out probability the learned answerer gives the gold, and the rules that find it) are
  dropped, a quarter of the surplus a round; once none is, the first `per_measure` in the
  builder's order are kept; if then one is above chance again, the most surely answered are
  dropped below `per_measure`, down to `min_share` of it; where the learned answerer's interval
  lies below chance (what is kept avoids its picks, which could be learned the other way), the
  least surely answered go instead;
- "above chance": the 95% Wilson interval lies above 1 / options, under any of CHECKS draws of
  the folds, or the learned answerer's mean score over them exceeds chance (by more than SLACK of
  it; the audit re-checks under folds of its own).

Every drop is counted per reason in the question report (`validity`), with the controls' scores on
what is kept. Distractors are never redrawn here: every option stays the builder's, so every
distractor stays false.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from lrworld.questions.learned import LearnedResult, cross_validate, wilson
from lrworld.questions.option_features import OptionFeatures
from lrworld.questions.signals import gold

# fold draws a kept set is checked under, and the learned answerer's allowed excess over chance
CHECKS = 5
SLACK = 0.0
MIN_SHARE = 0.25
MAX_ROUNDS = 200


@dataclass(frozen=True)
class Validity:
    """`questions.validity` of the config: off (the paper's construction) or the filter's settings."""
    filter: bool = False
    overdraw: int = 3
    min_share: float = MIN_SHARE

    @classmethod
    def of(cls, cfg: Mapping | None) -> "Validity":
        cfg = dict(cfg or {})
        return cls(bool(cfg.get("filter", False)), int(cfg.get("overdraw", 3)), float(cfg.get("min_share", MIN_SHARE)))

    def asked(self, n: int | None) -> int | None:
        """How many questions the builder makes for `n` kept."""
        return n * self.overdraw if self.filter and n else n


# how far above an option's share of its appearances an entity's golds may go, in binomial
# standard deviations: a hub (a gold far more often than it is shown) is capped, the noise of a
# fair draw is not (a cap at the share itself would make the other questions' golds give the
# answer away: every entity would sit at it, and a gold is the option one short of it)
CAP_SD = 2.0


def gold_cap(shown: int, n_options: int) -> int:
    """The most questions kept that an entity shown by `shown` of them may be the gold of."""
    p = 1.0 / n_options
    return math.ceil(shown * p + CAP_SD * math.sqrt(shown * p * (1 - p)))


def gold_rate_cap(questions: list[dict]) -> list[int]:
    """Indices of the questions to drop so that no entity is the gold of more than
    `gold_cap(shown, options)` of the questions kept (the latest first, recounted after each drop)."""
    dropped: set[int] = set()
    while True:
        kept = [i for i in range(len(questions)) if i not in dropped]
        golds = Counter(gold(questions[i]) for i in kept)
        shows = Counter(str(c) for i in kept for c in questions[i]["candidates"])
        n_opt = len(questions[kept[0]]["candidates"]) if kept else 1
        over = {e for e, g in golds.items() if g > gold_cap(shows[e], n_opt)}
        if not over:
            return sorted(dropped)
        latest = max(i for i in kept if gold(questions[i]) in over)
        dropped.add(latest)


@dataclass
class Controls:
    """The negative controls on one set of questions: the learned answerer under each fold draw and
    each rule's hits."""
    learned: list[LearnedResult]
    rules: dict[str, np.ndarray]  # rule -> per question, 1 where it picks the gold
    chance: float

    def rule_above(self) -> list[str]:
        out = []
        for name, hits in self.rules.items():
            lo, _ = wilson(int(hits.sum()), len(hits)) if len(hits) else (0.0, 1.0)
            if lo > self.chance:
                out.append(name)
        return out

    def learned_above(self) -> bool:
        mean = float(np.mean([r.score for r in self.learned]))
        return any(r.above_chance for r in self.learned) or mean > self.chance * (1 + SLACK)

    def learned_below(self) -> bool:
        """The learned answerer's interval lies below chance: what is kept avoids what it would pick,
        which an answerer could learn to use the other way."""
        return any(r.ci_high < self.chance for r in self.learned)

    def passes(self) -> bool:
        return not self.learned_above() and not self.learned_below() and not self.rule_above()

    def surety(self) -> np.ndarray:
        """Per question, how surely a control finds its gold: the learned answerer's held-out
        probability of the gold (mean over the draws, in units of chance) plus the share of the
        rules above chance that pick it."""
        p = np.mean([r.gold_probability for r in self.learned], axis=0) / self.chance
        above = self.rule_above()
        if above:
            p = p + np.mean([self.rules[n] for n in above], axis=0)
        return p


def controls(questions: list[dict], features: Callable[[list[dict]], OptionFeatures],
             rules: Callable[[list[dict]], dict[str, np.ndarray]], seed: int, name: str) -> Controls:
    table = features(questions)
    learned = [cross_validate(table, seed, name if k == 0 else f"{name}/check{k}") for k in range(CHECKS)]
    return Controls(learned, rules(questions), learned[0].chance if learned else 0.0)


def select(questions: list[dict], n: int, features: Callable[[list[dict]], OptionFeatures],
           rules: Callable[[list[dict]], dict[str, np.ndarray]], validity: Validity, seed: int,
           name: str) -> tuple[list[dict], dict]:
    """(the questions kept, in the builder's order; the filter's report). `questions`: the builder's,
    in its order; `features` and `rules`: the negative controls' inputs over a list of questions
    (their leave-one-out counts recounted on that list)."""
    kept = list(range(len(questions)))
    counts = Counter()
    floor = max(1, math.ceil(validity.min_share * n))
    result = None
    for _ in range(MAX_ROUNDS):
        capped = gold_rate_cap([questions[i] for i in kept])
        if capped:
            counts["dropped_gold_rate"] += len(capped)
            kept = [i for j, i in enumerate(kept) if j not in set(capped)]
            continue
        if not kept:
            break
        result = controls([questions[i] for i in kept], features, rules, seed, name)
        if result.passes():
            if len(kept) <= n:
                break
            counts["not_needed"] += len(kept) - n
            kept = kept[:n]
            continue
        if len(kept) <= floor:
            break
        surplus = len(kept) - n
        drop = max(1, math.ceil(surplus / 4)) if surplus > 0 else max(1, len(kept) // 20)
        drop = min(drop, len(kept) - floor) if surplus <= 0 else drop
        # above chance: the most surely answered go; below it (filtered too far): the least surely
        sure = result.surety() if not result.learned_below() or result.learned_above() else -result.surety()
        worst = np.argsort(-sure, kind="stable")[:drop]
        counts["dropped_answerable" if surplus <= 0 else "dropped_learned_filter"] += len(worst)
        kept = [i for j, i in enumerate(kept) if j not in set(worst.tolist())]
    out = [questions[i] for i in kept]
    return out, _report(questions, out, n, counts, result, validity)


def _report(built: list[dict], kept: list[dict], n: int, counts: Counter, result: Controls | None,
            validity: Validity) -> dict:
    rep = {"built": len(built), "asked": n, "kept": len(kept), "overdraw": validity.overdraw,
           "dropped_gold_rate": counts["dropped_gold_rate"],
           "dropped_learned_filter": counts["dropped_learned_filter"],
           "dropped_answerable": counts["dropped_answerable"], "not_needed": counts["not_needed"]}
    if result is not None:
        rep["passes"] = bool(result.passes())
        rep["learned"] = result.learned[0].summary() if result.learned else None
        rep["rules_above_chance"] = result.rule_above()
    return rep


def rule_hits(questions: list[dict], texts, counts: dict, own: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """Per shortcut rule (lrworld/models/shortcut.py) not reading only the measure's own signals,
    1 per question where it picks the gold, on what the questions' prompts show (`texts`:
    prompts.render.ItemTexts) and their signals recounted over `questions` (`counts`:
    signals.popularity's)."""
    from lrworld.models.base import PromptItem
    from lrworld.models.shortcut import pick, shortcuts
    from lrworld.prompts.render import labels_for, option_signals, shown
    from lrworld.questions import signals

    signals.attach(questions, counts)
    items = []
    for q in questions:
        hist, target, options = shown(q, texts)
        items.append(PromptItem(qid=q["qid"], prompt="", labels=labels_for(len(options)), candidates=tuple(options),
                                option_signals=option_signals(q, options, hist)))
    answers = np.asarray([q["answer_index"] for q in questions])
    return {name: np.asarray([pick(name, it) for it in items]) == answers
            for name, s in shortcuts().items() if not (s.reads and set(s.reads) <= set(own))}


def filtered(questions: list[dict], n: int | None, measure, interactions, items, validity: Validity, seed: int,
             dataset: str, exclude_values: dict[str, list[str]] | None = None,
             user_items: int | None = None) -> tuple[list[dict], dict | None]:
    """A builder's questions (in its order) filtered against the negative controls to at most `n`
    (`select`), their signals recounted on what is kept; unchanged with the filter off or no count.
    The controls read what the prompts show (`user_items`: the dataset's `user_items_shown`), as
    the audit's do."""
    from lrworld.prompts.render import ItemTexts
    from lrworld.questions import signals
    from lrworld.questions.option_features import DataCounts, option_features

    if not validity.filter or not n or not questions:
        return questions, None
    texts = ItemTexts(items, exclude_values, user_items)
    counts = DataCounts(interactions, items, measure.field)
    pops = signals.popularity(interactions, items, measure.field)

    def features(qs):
        return option_features(qs, items, counts, exclude_values, texts).without(measure.own_signals)

    def rules(qs):
        return rule_hits(qs, texts, pops, measure.own_signals)

    kept, report = select(questions, n, features, rules, validity, seed, f"{dataset}/{measure.id}")
    signals.attach(kept, pops)
    return kept, report
