"""GitHub pipe tables: the one layout of every .md table the graph writes (results, analyses,
tracks, audit). Each table formats its own cells (digits, missing values, marks); this only lays
them out. pandas' `to_markdown` would pad every column to its widest cell (tabulate), which
makes a one-cell change rewrite every line of a table under version control."""

from __future__ import annotations

from typing import Iterable, Sequence


def pipe_table(header: Sequence[str], rows: Iterable[Sequence[str]], right: Sequence[bool] | None = None) -> list[str]:
    """The lines of a table; `right[i]` right-aligns column i (numbers), default left."""
    right = list(right) if right is not None else [False] * len(header)
    lines = [_line(header), "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    return lines + [_line(r) for r in rows]


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"
