"""Metadata joins: one module per metadata source aligned to a dataset's items, each registering
itself here.

A join entry carries what the graph and the config need: the `metadata:` keys that name its files
(all required together; `optional_keys` may be added), how a key's value expands to the files it
reads (every one a declared input of the ingest rule), the formats whose items it can align to,
the schema fragment of its options, the item fields it fills, and what to check when its alignment
rate is below `metadata.min_alignment`. `apply` returns (items, report) with `aligned` (items that
got a metadata row); the ingest computes the rate, the fields' coverage and enforces the floor.

Joins fill values that are missing and never overwrite one; they run in `order` (then name).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lrworld.core import plugins
from lrworld.core.registry import Registry, discover


def one_file(value) -> list[str]:
    return [str(value)]


@dataclass(frozen=True)
class Join:
    name: str
    apply: Callable
    keys: tuple[str, ...]
    formats: tuple[str, ...]
    fields: tuple[str, ...]
    check: str
    optional_keys: tuple[str, ...] = ()
    options: dict | None = None
    order: int = 10
    expand: Callable[[str, object], list[str]] = lambda key, value: one_file(value)
    key_schema: dict | None = None
    # False: its values are not curated (LLMRec's LLM-made directors): they fill a field no other
    # source covers and never witness for or against one
    witness: bool = True

    def files(self, meta: dict) -> dict[str, list[str]]:
        """{key: [files]} for the keys this join finds in a dataset's `metadata:` block."""
        return {k: self.expand(k, meta[k]) for k in self.keys + self.optional_keys if k in meta}


JOINS: Registry[Join] = Registry("metadata join")

YEAR_TOLERANCE = {"type": "integer", "minimum": 0, "maximum": 5, "default": 1,
                  "description": "years a metadata row may differ from the item's and still align"}


def register(name: str, **kw) -> Callable:
    return JOINS.decorator(name, lambda fn: Join(name, fn, **kw))


def for_format(fmt: str) -> list[Join]:
    return sorted((j for _, j in JOINS.items() if fmt in j.formats), key=lambda j: (j.order, j.name))


def metadata_keys() -> list[str]:
    return sorted({k for _, j in JOINS.items() for k in j.keys + j.optional_keys})


def fill(current, new):
    """`new` where `current` has no value (None, NaN, '' or an empty list)."""
    if isinstance(current, (list, tuple)):
        return current if len(current) else new
    if current is None or current == "" or (isinstance(current, float) and current != current):
        return new
    return current


def paths(value) -> list[Path]:
    return [Path(v) for v in value] if isinstance(value, (list, tuple)) else [Path(value)]


discover(__name__)
plugins.import_modules("lrworld.joins")  # an installed package's own (lrworld/core/plugins.py)
