"""The question builders, one registry for both kinds: a measure's `builder` names its entry.

- `WINDOWS`: built from each user's latest window at question time (`lrworld.questions.knowledge`:
  field_values, item_text, item_title), called as
  `build(measure, dataset, windows, items, seed, item_texts=, limit=, exclude=) -> (questions, report)`.
- `ARTIFACT`: built from a ground-truth artifact by the `gt_questions` rule
  (`lrworld.groundtruth.questions`), called as
  `build(interactions, artifact_df, n_questions, seed, dataset, display=) -> (questions, report)`.

Each module registers its own builders on import (`@register_builder(name, source)`); a measure may
instead name its builder as `"module:attr"`, imported only by the job that builds its questions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lrworld.core.registry import Registry, resolve

WINDOWS, ARTIFACT = "windows", "artifact"


@dataclass(frozen=True)
class Builder:
    name: str
    source: str  # WINDOWS or ARTIFACT: what it is built from, and so how it is called
    build: Callable


BUILDERS: Registry[Builder] = Registry("question builder")


def register_builder(name: str, source: str):
    if source not in (WINDOWS, ARTIFACT):
        raise ValueError(f"question builder {name!r}: source {source!r} is not {WINDOWS!r} or {ARTIFACT!r}")
    return BUILDERS.decorator(name, lambda fn: Builder(name, source, fn))


def builder(name: str, source: str) -> Builder:
    """The registered builder `name`, which must be of `source`, or the function a "module:attr"
    name refers to (called as `source` says)."""
    if ":" in name:
        return Builder(name, source, resolve(name))
    b = BUILDERS.get(name)
    if b.source != source:
        raise ValueError(f"question builder {name!r} builds from {b.source}, not from {source}")
    return b
