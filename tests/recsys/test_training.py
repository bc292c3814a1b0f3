"""The shared epoch loop: early stopping on a scripted validation curve, best weights restored."""

import pytest
import torch

from lrworld.recsys.training import train_epochs


def _model_and_epoch():
    """A one-weight model whose weight is the number of epochs run so far."""
    model = torch.nn.Linear(1, 1, bias=False)

    def run_epoch():
        with torch.no_grad():
            model.weight += 1.0
        return 10.0 - model.weight.item()  # a "loss" that falls

    torch.nn.init.zeros_(model.weight)
    return model, run_epoch


@pytest.mark.parametrize("higher,curve,best,run", [
    (True, [0.1, 0.3, 0.2, 0.25, 0.4, 0.5], 2, 4),  # two epochs without a better score after epoch 2
    (True, [0.1, 0.2, 0.3, 0.3, 0.35], 5, 5),  # a tie is no improvement, but epoch 5 improves in time
    (False, [5.0, 4.0, 4.5, 3.0, 3.5, 3.6, 9.0], 4, 6),  # lower is better (a loss)
])
def test_early_stopping_hand_computed(higher, curve, best, run):
    model, run_epoch = _model_and_epoch()
    values = iter(curve)
    tr = train_epochs(model, run_epoch, max_epochs=len(curve), validate=lambda: next(values), patience=2,
                      valid_metric="m", higher_is_better=higher)
    assert (tr.best_epoch, tr.epochs_run) == (best, run)
    assert tr.valid_curve == curve[:run] and tr.train_loss == [10.0 - e for e in range(1, run + 1)]
    assert model.weight.item() == best  # the weights after the best epoch, not the last one
    assert tr.stopped_early == (run < len(curve))
    d = tr.as_dict()
    assert d["epochs_run"] == run and d["patience"] == 2 and d["valid_metric"] == "m" and not model.training


def test_without_validation_every_epoch_runs():
    model, run_epoch = _model_and_epoch()
    tr = train_epochs(model, run_epoch, max_epochs=3)
    assert (tr.best_epoch, tr.epochs_run, tr.valid_curve, tr.patience) == (3, 3, [], None)
    assert model.weight.item() == 3


def test_bad_settings():
    model, run_epoch = _model_and_epoch()
    with pytest.raises(ValueError, match="max_epochs"):
        train_epochs(model, run_epoch, max_epochs=0)
    with pytest.raises(ValueError, match="patience"):
        train_epochs(model, run_epoch, max_epochs=3, validate=lambda: 0.0)
