"""Token statistics per measure (the paper's Tables 16-17) and inference time (Table 18)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd


def whitespace_tokens(text: str) -> int:
    return len(text.split())


def make_counter(name: str, models: dict | None = None) -> Callable[[str], int]:
    """'whitespace', or the name of a configured hf model, whose tokenizer counts the tokens."""
    if name == "whitespace":
        return whitespace_tokens
    cfg = (models or {}).get(name)
    if cfg is None or cfg.get("backend") != "hf":
        raise ValueError(f"analysis.tokenizer: {name!r} is neither 'whitespace' nor an enabled hf model")
    from lrworld.models import make_backend

    tok = make_backend(name, dict(cfg)).tokenizer
    return lambda text: len(tok(text, add_special_tokens=False)["input_ids"])


def _stats(prefix: str, values) -> dict:
    v = np.asarray([x for x in values if x is not None and not pd.isna(x)], dtype=float)
    if len(v) == 0:
        return {f"{prefix}_mean": float("nan"), f"{prefix}_median": float("nan"), f"{prefix}_max": float("nan"),
                f"{prefix}_total": float("nan")}
    return {f"{prefix}_mean": float(v.mean()), f"{prefix}_median": float(np.median(v)),
            f"{prefix}_max": float(v.max()), f"{prefix}_total": float(v.sum())}


def prompt_tokens(prompts: dict, count: Callable[[str], int], tokenizer: str) -> pd.DataFrame:
    """`prompts`: {(measure, variant): [prompt records]} -> one row per (measure, variant)."""
    rows = []
    for (measure, variant), recs in sorted(prompts.items()):
        rows.append({"measure": measure, "variant": variant, "tokenizer": tokenizer, "n": len(recs),
                     **_stats("prompt_tokens", [count(r["prompt"]) for r in recs])})
    return pd.DataFrame(rows)


def usage_and_time(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Backend-reported tokens in/out (API usage or the local tokenizer) and seconds per question,
    per (model, measure, variant)."""
    usage, time = [], []
    for (model, measure, variant), g in frame.groupby(["model", "measure", "variant"], sort=False):
        key = {"model": model, "measure": measure, "variant": variant, "n": len(g)}
        usage.append({**key, **_stats("tokens_in", g["tokens_in"]), **_stats("tokens_out", g["tokens_out"])})
        time.append({**key, **_stats("latency_s", g["latency_s"])})
    return pd.DataFrame(usage), pd.DataFrame(time)
