"""NCF, NGCF and LightGCN: shapes, seeding, the graph normalisation, and learning a planted
two-community structure."""

import logging

import numpy as np
import pytest
import torch

from lrworld.recsys import cf


def _planted(n_users=20, n_items=20, per_user=6, seed=0):
    """Users 0..9 use items 0..9, users 10..19 use items 10..19."""
    rng = np.random.default_rng(seed)
    users, items = [], []
    half_u, half_i = n_users // 2, n_items // 2
    for u in range(n_users):
        base = 0 if u < half_u else half_i
        for i in rng.choice(half_i, per_user, replace=False):
            users.append(u)
            items.append(base + int(i))
    return np.array(users), np.array(items)


def test_normalized_adjacency():
    a = cf.normalized_adjacency(2, 3, np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1])).to_dense()
    assert a.shape == (5, 5)
    assert torch.allclose(a, a.T)
    # user 0 (degree 2) - item 0 (degree 1): 1/sqrt(2*1); duplicate (1, 1) counted once
    assert a[0, 2].item() == pytest.approx(1 / np.sqrt(2))
    assert a[1, 3].item() == pytest.approx(1 / np.sqrt(1 * 2))
    assert a[0, 1].item() == 0 and a[2, 3].item() == 0  # bipartite
    assert a[4].abs().sum().item() == 0  # item 2 has no interactions


@pytest.mark.parametrize("name", cf.MODELS)
def test_learns_planted_communities(name):
    users, items = _planted()
    m = cf.build(name, 20, 20, users, items, seed=0)
    tr = cf.fit(m, users, items, max_epochs=40, seed=0, lr=1e-2, batch_size=32)
    assert tr.epochs_run == 40 and tr.best_epoch == 40 and tr.valid_curve == []  # no validation: every epoch
    assert tr.train_loss[-1] < tr.train_loss[0]
    s = cf.score(m, np.arange(20))
    assert s.shape == (20, 20)
    own = torch.cat([s[:10, :10].reshape(-1), s[10:, 10:].reshape(-1)]).mean()
    other = torch.cat([s[:10, 10:].reshape(-1), s[10:, :10].reshape(-1)]).mean()
    assert own > other


def test_training_reports_progress_per_epoch(caplog):
    caplog.set_level(logging.INFO, logger="lrworld.progress")
    users, items = _planted()
    cf.fit(cf.build("ncf", 20, 20, users, items, seed=0), users, items, max_epochs=3, seed=0, batch_size=16)
    last = [r.getMessage() for r in caplog.records if r.name == "lrworld.progress"][-1]
    assert last.startswith("NCF: 100%|") and " 3/3 [" in last


@pytest.mark.parametrize("name", cf.MODELS)
def test_seeded_training_is_reproducible(name):
    users, items = _planted()
    out = []
    for _ in range(2):
        m = cf.build(name, 20, 20, users, items, seed=3)
        cf.fit(m, users, items, max_epochs=2, seed=3, batch_size=16)
        out.append(cf.score(m, [0, 5, 19]))
    assert torch.equal(out[0], out[1])
    m = cf.build(name, 20, 20, users, items, seed=4)
    cf.fit(m, users, items, max_epochs=2, seed=4, batch_size=16)
    assert not torch.equal(out[0], cf.score(m, [0, 5, 19]))


def test_default_learning_rate_is_seed_setting():
    import inspect

    assert inspect.signature(cf.fit).parameters["lr"].default == 1e-3


def test_unknown_model():
    with pytest.raises(ValueError, match="unknown CF model"):
        cf.build("bpr", 2, 2, np.array([0]), np.array([0]))
