"""Which entities a neural question may name: only those NeuMF saw often enough in training for
their embeddings to mean something (`groundtruth.neural.min_interactions`, docs/groundtruth.md).

An item seen once has an embedding that training barely moved from its initialisation, and such
vectors lie near everything in cosine (hubness): a barely-trained item became the gold of most
neu_user2items questions. Counts are of the training interactions: every row but each user's last,
which NeuMF holds out (lrworld/groundtruth/neumf.py:leave_one_out) for users with two or more.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def training_counts(interactions: pd.DataFrame) -> dict[str, dict[str, int]]:
    """{"user": {id: n}, "item": {id: n}}: training interactions per user and per item."""
    users = interactions["user_id"].astype(str)
    size = users.map(users.value_counts())
    # the last row of each user with two or more rows is held out (contract order: chronological)
    last = interactions.groupby(users, sort=False).cumcount(ascending=False).to_numpy() == 0
    train = interactions[~(last & (size.to_numpy() >= 2))]
    return {"user": train["user_id"].astype(str).value_counts().to_dict(),
            "item": train["item_id"].astype(str).value_counts().to_dict()}


def eligible(ids, counts: dict[str, int], min_interactions: int) -> np.ndarray:
    """A mask over `ids`: True where the entity has at least `min_interactions` training interactions."""
    return np.array([counts.get(str(i), 0) >= min_interactions for i in ids], dtype=bool)
