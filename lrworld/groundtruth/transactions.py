"""Users' histories as transactions (the input of association-rule mining) and interaction matrices.

Semantics (docs/groundtruth.md): each user's chronological history (the contract order: timestamp,
then item_id) is cut into consecutive, non-overlapping windows of `window` interactions; each window
is one transaction (a set: an item repeated inside a window counts once). The last window of a
user may be shorter. `window=None` (or 0) makes each whole history one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp


@dataclass
class Index:
    """Integer codes of the ids in an interaction table (codes follow sorted id order)."""

    user_ids: np.ndarray  # object array of str, sorted
    item_ids: np.ndarray
    user_codes: np.ndarray  # one per interaction row
    item_codes: np.ndarray

    @property
    def n_users(self) -> int:
        return len(self.user_ids)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)


def index_interactions(interactions: pd.DataFrame) -> Index:
    ucodes, uids = pd.factorize(interactions["user_id"], sort=True)
    icodes, iids = pd.factorize(interactions["item_id"], sort=True)
    return Index(
        user_ids=np.asarray(uids, dtype=object),
        item_ids=np.asarray(iids, dtype=object),
        user_codes=ucodes.astype(np.int64),
        item_codes=icodes.astype(np.int64),
    )


def binary_matrix(idx: Index) -> sp.csr_matrix:
    """users x items, 1.0 where the user interacted with the item at least once (one-hot)."""
    data = np.ones(len(idx.user_codes), dtype=np.float64)
    m = sp.csr_matrix((data, (idx.user_codes, idx.item_codes)), shape=(idx.n_users, idx.n_items))
    m.sum_duplicates()
    m.data[:] = 1.0
    return m


def transaction_matrix(interactions: pd.DataFrame, window: int | None = 10, idx: Index | None = None):
    """Return (X, item_ids, tx_user_ids): X is a CSR bool matrix transactions x items.

    `interactions` must be in contract order (sorted by user_id, timestamp, item_id).
    Transactions are ordered by user, then window position.
    """
    idx = idx or index_interactions(interactions)
    u = idx.user_codes
    n = len(u)
    if n == 0:
        return sp.csr_matrix((0, idx.n_items), dtype=bool), idx.item_ids, np.array([], dtype=object)
    if np.any(np.diff(u) < 0):
        raise ValueError("interactions are not sorted by user_id (contract order expected)")
    # Position of each interaction inside its user's history.
    starts = np.r_[0, np.flatnonzero(np.diff(u)) + 1]
    counts = np.diff(np.r_[starts, n])
    pos = np.arange(n) - np.repeat(starts, counts)
    if window:
        chunk = pos // int(window)
        n_chunks = (counts + int(window) - 1) // int(window)
    else:
        chunk = np.zeros(n, dtype=np.int64)
        n_chunks = np.ones(len(counts), dtype=np.int64)
    tx_offset = np.r_[0, np.cumsum(n_chunks)[:-1]]
    tx = np.repeat(tx_offset, counts) + chunk
    n_tx = int(n_chunks.sum())
    X = sp.csr_matrix(
        (np.ones(n, dtype=bool), (tx, idx.item_codes)), shape=(n_tx, idx.n_items), dtype=bool
    )
    X.sum_duplicates()
    X.data[:] = True
    tx_users = np.repeat(idx.user_ids[u[starts]], n_chunks)
    return X, idx.item_ids, tx_users
