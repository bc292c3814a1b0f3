"""GRU4Rec, Caser, SASRec and Popularity: interface, determinism, learning a pattern, and the
issue's check that they beat random by a clear margin on LLaRA's Steam test set."""

import logging

import numpy as np
import pytest
import torch

from lrworld.recsys.sequential import MODELS, Caser, GRU4Rec, Popularity, SASRec, fit, make_model, pick, score
from lrworld.recsys.sequential import cross_entropy, pad_histories

N_ITEMS = 40


def _pattern(n=1500, seed=0):
    """Histories of consecutive items (mod N_ITEMS); the next item continues the run."""
    rng = np.random.default_rng(seed)
    hs, ys = [], []
    for _ in range(n):
        start, length = int(rng.integers(N_ITEMS)), int(rng.integers(1, 11))
        seq = [(start + k) % N_ITEMS for k in range(length + 1)]
        hs.append(seq[:-1])
        ys.append(seq[-1])
    return hs, ys


def test_pad_histories_left_pads_and_truncates():
    x = pad_histories([[1, 2], list(range(12))], seq_len=4, pad_id=99)
    assert x.tolist() == [[99, 99, 1, 2], [8, 9, 10, 11]]
    with pytest.raises(ValueError, match="empty"):
        pad_histories([[]], 4, 99)


@pytest.mark.parametrize("name", ["gru4rec", "caser", "sasrec"])
def test_neural_models_learn_a_sequential_pattern(name):
    hs, ys = _pattern()
    model = make_model(name, N_ITEMS, seq_len=10, hidden=32)
    tr = fit(model, hs, ys, max_epochs=6, seed=0, lr=5e-3)
    assert tr.train_loss[-1] < tr.train_loss[0]
    ths, tys = _pattern(200, seed=1)
    s = score(model, ths)
    assert s.shape == (200, N_ITEMS) and s.dtype == np.float32
    acc = float(np.mean(s.argmax(1) == np.array(tys)))
    assert acc > 0.6, f"{name} full-ranking accuracy {acc:.2f} on a deterministic pattern"


@pytest.mark.parametrize("cls", [GRU4Rec, Caser, SASRec])
def test_seeded_training_is_deterministic_and_padding_invariant(cls):
    hs, ys = _pattern(300)
    a, b = cls(N_ITEMS, hidden=16), cls(N_ITEMS, hidden=16)
    fit(a, hs, ys, max_epochs=1, seed=3)
    fit(b, hs, ys, max_epochs=1, seed=3)
    np.testing.assert_array_equal(score(a, hs[:20]), score(b, hs[:20]))
    # a history longer than seq_len is read as its last seq_len items
    long = [list(range(15))]
    np.testing.assert_allclose(score(a, long), score(a, [list(range(5, 15))]), rtol=1e-5, atol=1e-5)


def test_early_stopping_on_held_out_cross_entropy(caplog):
    """LLaRA's criterion (held-out cross-entropy, lower is better) through ``fit``: training ends
    two epochs after the best one (or at the cap) and the best epoch's weights are back."""
    caplog.set_level(logging.INFO, logger="lrworld.progress")
    hs, ys = _pattern(600)
    vh, vy = _pattern(100, seed=1)
    model = GRU4Rec(N_ITEMS, hidden=16)
    tr = fit(model, hs, ys, max_epochs=8, seed=0, validate=lambda: cross_entropy(model, vh, vy), patience=2,
             valid_metric="cross_entropy", higher_is_better=False)
    assert tr.valid_metric == "cross_entropy" and len(tr.valid_curve) == tr.epochs_run
    assert tr.valid_curve[tr.best_epoch - 1] == min(tr.valid_curve)
    assert cross_entropy(model, vh, vy) == pytest.approx(min(tr.valid_curve), rel=1e-5)  # best weights restored
    assert tr.epochs_run == min(8, tr.best_epoch + 2)
    # progress over the epoch cap; the last line is where training stopped
    last = [r.getMessage() for r in caplog.records if r.name == "lrworld.progress"][-1]
    assert last.startswith("GRU4Rec:") and f" {tr.epochs_run}/8 [" in last


def test_popularity_and_pick():
    pop = Popularity(5)
    assert fit(pop, [[0], [1], [2], [0]], [3, 3, 1, 4], max_epochs=5, seed=0).epochs_run == 0
    assert pop.counts.tolist() == [0, 1, 0, 2, 1]
    picks, cand_scores = pick(pop, [[0], [0]], [[0, 4, 3], [2, 1, 4]])
    assert picks == [2, 1]  # item 3 (2 counts); then items 1 and 4 tie -> earlier candidate
    assert cand_scores[0] == [0.0, 1.0, 2.0]


def test_bad_inputs_are_rejected():
    with pytest.raises(ValueError, match="item ids"):
        fit(GRU4Rec(5), [[0, 7]], [1], max_epochs=1, seed=0)
    with pytest.raises(ValueError, match="targets"):
        fit(Popularity(5), [[0]], [1, 2], max_epochs=1, seed=0)
    with pytest.raises(ValueError, match="unknown baseline"):
        make_model("bert4rec", 5)
    assert set(MODELS) == {"gru4rec", "caser", "sasrec", "popularity"}


def test_baselines_beat_random_on_llara_steam(shared_data):
    from lrworld.tracks.llara.candidates import draw_candidates
    from lrworld.tracks.llara.data import load_released
    from lrworld.tracks.llara.scoring import score_responses

    torch.set_num_threads(1)
    ds = load_released("steam", {"path": str(shared_data / "llara" / "steam"),
                                 "train_files": ["train_data_first1000.jsonl"], "train_expand": ["Val_data.jsonl"]})
    recs = draw_candidates(ds, seed=0)
    hs, ys = [e.history for e in ds.train], [e.next for e in ds.train]
    for model, epochs in ((Popularity(ds.n_items), 1), (GRU4Rec(ds.n_items), 3)):
        fit(model, hs, ys, max_epochs=epochs, seed=0, batch_size=512)
        picks, _ = pick(model, [r["history"] for r in recs], [r["candidates"] for r in recs])
        s = score_responses(recs, [{"qid": r["qid"], "choice_index": k} for r, k in zip(recs, picks)], mode="index")[1]
        assert s["valid_ratio"] == 1.0
        assert s["hit_ratio_at_1_valid"] > 0.25, f"{type(model).__name__}: {s['hit_ratio_at_1_valid']:.3f} (random 0.05)"
