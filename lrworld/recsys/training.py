"""The epoch loop every baseline shares: train, score a validation split, stop early, keep the best.

``train_epochs`` runs ``run_epoch`` (one pass over the training data, returns its mean loss) up
to ``max_epochs`` times. With ``validate`` (a callable scoring the model on held-out data) it
records the validation curve, stops after ``patience`` epochs without a strict improvement and
restores the weights of the best epoch; the returned :class:`Training` says what happened.

Written here rather than taken from a library: PyTorch has no early stopping of its own, and the
callbacks of Lightning, Ignite or skorch only work inside their trainers, none of which is a
dependency of this project; the loop below is the part of them these baselines need.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Callable

from lrworld.core import progress

if TYPE_CHECKING:  # torch is imported by the loop itself: planning reads `Training` without torch
    import torch


@dataclass
class Training:
    """What one training run did: the per-epoch training loss and validation curve, and the
    epoch whose weights the model holds afterwards (``best_epoch``; the last one without
    validation)."""

    max_epochs: int
    patience: int | None
    valid_metric: str | None
    higher_is_better: bool = True
    train_loss: list[float] = field(default_factory=list)
    valid_curve: list[float] = field(default_factory=list)
    best_epoch: int = 0

    @property
    def epochs_run(self) -> int:
        return len(self.train_loss)

    @property
    def stopped_early(self) -> bool:
        return self.epochs_run < self.max_epochs

    def as_dict(self) -> dict:
        return {**asdict(self), "epochs_run": self.epochs_run, "stopped_early": self.stopped_early}


def train_epochs(model: torch.nn.Module, run_epoch: Callable[[], float], max_epochs: int,
                 validate: Callable[[], float] | None = None, patience: int | None = None,
                 valid_metric: str | None = None, higher_is_better: bool = True,
                 log: Callable[[str], None] | None = None) -> Training:
    """Train ``model`` in place (see the module docstring); ``run_epoch`` runs in train mode,
    ``validate`` in eval mode without gradients. The model is left in eval mode."""
    import torch

    if max_epochs < 1:
        raise ValueError(f"max_epochs must be >= 1, got {max_epochs}")
    if validate is not None and (patience is None or patience < 1):
        raise ValueError(f"early stopping needs patience >= 1, got {patience}")
    out = Training(max_epochs=max_epochs, patience=patience if validate else None,
                   valid_metric=valid_metric if validate else None, higher_is_better=higher_is_better)
    best_state, bad = None, 0
    name = type(model).__name__
    # epochs done of the cap, with their rate: early stopping may end it sooner than the ETA says
    shown = progress.bar(max_epochs, name, "epoch")
    for epoch in range(1, max_epochs + 1):
        model.train()
        out.train_loss.append(float(run_epoch()))
        model.eval()
        shown.update()
        if validate is None:
            out.best_epoch = epoch
            if log:
                log(f"{name} epoch {epoch}/{max_epochs} loss {out.train_loss[-1]:.4f}")
            continue
        with torch.no_grad():
            value = float(validate())
        out.valid_curve.append(value)
        best = out.valid_curve[out.best_epoch - 1] if out.best_epoch else None
        if best is None or (value > best if higher_is_better else value < best):
            out.best_epoch, bad = epoch, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            bad += 1
        if log:
            log(f"{name} epoch {epoch}/{max_epochs} loss {out.train_loss[-1]:.4f} {valid_metric} {value:.4f} "
                f"(best {out.valid_curve[out.best_epoch - 1]:.4f} at epoch {out.best_epoch})")
        if bad >= patience:
            break
    shown.close()
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return out
