"""Leave-one-out windows: the latest item is the positive of the items before it (paper §3 (f))."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Window:
    user_id: str
    history: tuple[str, ...]  # chronological, oldest first
    positive: str


def latest_windows(interactions: pd.DataFrame, history_length: int, max_history: int | None = None) -> list[Window]:
    """One window per user: the user's last `history_length` items before their last item.

    Users with fewer than history_length + 1 interactions have no window (counted by the caller).
    `interactions` is in contract order (user, timestamp, item), so equal timestamps break by item id
    and the windows are deterministic. With `max_history`, the history is every item before the
    last (at least `history_length`, at most `max_history`): LLaRA's variable-length test rows.
    """
    out = []
    for user, items in interactions.groupby("user_id", sort=True)["item_id"]:
        seq = items.tolist()
        if len(seq) < history_length + 1:
            continue
        n = history_length if max_history is None else min(len(seq) - 1, max_history)
        out.append(Window(str(user), tuple(seq[-n - 1:-1]), seq[-1]))
    return out


def sample(windows: list, n: int | None, rng: np.random.Generator) -> list:
    """A seeded sample of n windows (all of them when n is None or larger), in a stable order."""
    if n is None or n >= len(windows):
        return list(windows)
    idx = np.sort(rng.choice(len(windows), size=n, replace=False))
    return [windows[i] for i in idx]
