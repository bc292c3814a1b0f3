"""Leave-one-out windows: the latest item is the positive of the items before it (paper §3 (f))."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lrworld.questions import enforced

TIES = ("numeric", "string", "drop")


@dataclass(frozen=True)
class Window:
    user_id: str
    history: tuple[str, ...]  # chronological, oldest first
    positive: str
    # the positive shares its timestamp with the last history item: "latest" is then only the
    # order of ids, not of time (about 44% of ML-100K users)
    tied: bool = False
    # every item of the user (a view into the interactions, not a copy): negatives never come from it
    known: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=object), compare=False, repr=False)


def ordered(interactions: pd.DataFrame, ties: str) -> pd.DataFrame:
    """Interactions in the order windows read them. The contract order (user, timestamp, numeric-aware
    item id) serves `numeric` and `drop`; `string` re-breaks ties by the id as text."""
    if ties not in TIES:
        raise ValueError(f"questions.ties: {ties!r} is not one of {list(TIES)}")
    if ties == "string":
        return interactions.sort_values(["user_id", "timestamp", "item_id"], kind="mergesort")
    # stable: each user's rows keep their contract order
    return interactions.sort_values("user_id", kind="mergesort")


def latest_windows(interactions: pd.DataFrame, history_length: int, max_history: int | None = None,
                   ties: str = "numeric") -> list[Window]:
    """One window per user: the user's last `history_length` items before their last item.

    Users with fewer than history_length + 1 interactions have no window (counted by the caller).
    `interactions` is in contract order, so the windows are deterministic; `ties` decides the order
    of items with equal timestamps (see `ordered`; `drop` is applied by the caller, which counts it).
    With `max_history`, the history is every item before the last (at least `history_length`, at
    most `max_history`): LLaRA's variable-length test rows.
    """
    df = ordered(interactions, ties)
    users = df["user_id"].astype(str).to_numpy()
    items = df["item_id"].astype(str).to_numpy(dtype=object)
    stamps = df["timestamp"].to_numpy()
    if len(users) == 0:
        return []
    starts = np.r_[0, np.flatnonzero(users[1:] != users[:-1]) + 1]
    ends = np.r_[starts[1:], len(users)]
    out = []
    for s, e in zip(starts, ends):
        if e - s < history_length + 1:
            continue
        n = history_length if max_history is None else min(e - s - 1, max_history)
        out.append(Window(str(users[s]), tuple(items[e - n - 1:e - 1]), items[e - 1],
                          tied=enforced.tied(stamps[e - 1], stamps[e - 2]), known=items[s:e]))
    return out

