"""Option feature tables with a planted knowledge-free shortcut, for the negative control's tests."""

from __future__ import annotations

import numpy as np

from lrworld.questions.option_features import NAMES, OptionFeatures


def planted_table(n: int, options: int, feature: str, planted: float, seed: int = 0) -> OptionFeatures:
    """n questions of `options` options with random features; in a share `planted` of them the gold
    has the largest `feature` (a shortcut a prompt could show)."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, options, len(NAMES)))
    answers = rng.integers(options, size=n)
    col = NAMES.index(feature)
    for i in np.flatnonzero(rng.random(n) < planted):
        values[i, answers[i], col] = values[i, :, col].max() + 1
    return OptionFeatures([f"d/m/{i}" for i in range(n)], values, answers)
