"""Defaults of config["groundtruth"] and their merge (a missing key takes its default)."""

from __future__ import annotations

import copy

DEFAULTS = {
    "n_questions": 200,  # per measure and dataset
    "seed": 0,  # question sampling / candidate shuffling
    "assoc": {"min_support": 0.01, "min_confidence": 0.01, "max_len": 3, "window": 20, "algorithm": "hmine"},
    "similarity": {"threshold": 0.01, "min_degree": 5, "fallback_quantile": 0.5},
    "neumf": {"epochs": 5, "factors": 16, "layers": [64, 32, 16], "lr": 0.001, "batch_size": 1024,
              "num_neg": 4, "seed": 0, "eval_users": 2000, "device": "auto"},
    "kmeans": {"k": 10, "n_positives": 10},
}

MEASURES = ("assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items")


def resolve(cfg: dict | None) -> dict:
    """Deep-merge cfg over DEFAULTS; unknown keys are an error (a typo must not pass silently)."""
    out = copy.deepcopy(DEFAULTS)
    for key, val in (cfg or {}).items():
        if key not in out:
            raise KeyError(f"config groundtruth: unknown key {key!r}; known: {sorted(out)}")
        if isinstance(out[key], dict):
            if not isinstance(val, dict):
                raise TypeError(f"config groundtruth.{key} must be a mapping")
            for k, v in val.items():
                if k not in out[key]:
                    raise KeyError(f"config groundtruth.{key}: unknown key {k!r}; known: {sorted(out[key])}")
                out[key][k] = v
        else:
            out[key] = val
    return out
