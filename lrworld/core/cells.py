"""A table cell that may hold one text or several (a Parquet list column reads back as an array)."""

from __future__ import annotations


def is_listlike(v) -> bool:
    """A list, a tuple or an array-like cell (numpy, pandas, pyarrow), never a string."""
    return isinstance(v, (list, tuple)) or (hasattr(v, "__len__") and hasattr(v, "tolist") and not isinstance(v, str))


def strings(v) -> list[str]:
    """The cell's non-empty strings: a list-like cell's string elements, a string cell itself."""
    if is_listlike(v):
        return [x for x in list(v) if isinstance(x, str) and x.strip()]
    return [v] if isinstance(v, str) and v.strip() else []
