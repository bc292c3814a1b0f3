"""Shortcut answerers: knowledge-free rules that pick an option from what a question shows or what
the data's counts say, never from the knowledge a measure tests. Each rule is one module of
`lrworld.models.shortcuts` that registers itself (`@register_shortcut(name, reads=...)`); the
`shortcut` backend (lrworld/models/backends/shortcut.py) answers with one of them, and the audit
(lrworld/audit/shortcuts.py) scores every one on every measure before any model runs.

A rule maps a prompt item to one number per option; the option with the highest number is its
answer, a tie broken uniformly by a stream named by the rule and the question
(`rng_for(seed, "shortcut", rule, qid)`), so a rule that sees nothing scores chance on average.
`reads` names the per-option signals it needs (`PromptItem.option_signals`, made at question time
by lrworld/questions/signals.py and carried by the prompt): they are part of the answer's cache key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from lrworld.core.registry import Registry, discover
from lrworld.core.seeding import rng_for
from lrworld.models.base import PromptItem

# The per-option signals a question may carry (lrworld/questions/signals.py):
POPULARITY = "popularity"  # interactions of an item or user option; items carrying a value option
GOLD_COUNT_OTHERS = "gold_count_others"  # questions of the measure, this one left out, whose gold it is
HISTORY_OVERLAP = "history_overlap"  # words of the option's text found in the question's history text
SIGNALS = (POPULARITY, GOLD_COUNT_OTHERS, HISTORY_OVERLAP)


@dataclass(frozen=True)
class Shortcut:
    name: str
    score: Callable[[PromptItem], Sequence[float] | None]  # one number per option; None: cannot answer
    reads: tuple[str, ...] = ()
    doc: str = ""


SHORTCUTS: Registry[Shortcut] = Registry("shortcut")


def register_shortcut(name: str, *, reads: Sequence[str] = ()):
    unknown = [r for r in reads if r not in SIGNALS]
    if unknown:
        raise ValueError(f"shortcut {name!r}: reads unknown signals {unknown}; known: {list(SIGNALS)}")
    return SHORTCUTS.decorator(name, lambda fn: Shortcut(name, fn, tuple(reads), (fn.__doc__ or "").strip()))


def shortcuts() -> Registry[Shortcut]:
    """The registry, every rule module of `lrworld.models.shortcuts` imported."""
    discover("lrworld.models.shortcuts")
    return SHORTCUTS


def signal(item: PromptItem, name: str) -> list[float] | None:
    """One signal per option, or None when the question carries none (a kind of option it has no
    meaning for: no popularity for a text option)."""
    values = (item.option_signals or {}).get(name)
    if values is None or len(values) != len(item.labels) or any(v is None for v in values):
        return None
    return [float(v) for v in values]


def pick(rule: str, item: PromptItem, seed: int = 0) -> int:
    """The option index `rule` answers `item` with; no signal at all: a seeded uniform pick."""
    scores = shortcuts().get(rule).score(item)
    n = len(item.labels)
    best = list(range(n)) if scores is None else [i for i, s in enumerate(scores) if s == max(scores)]
    return best[int(rng_for(seed, "shortcut", rule, item.qid).integers(len(best)))] if len(best) > 1 else best[0]
