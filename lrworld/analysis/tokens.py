"""Token statistics per measure (the paper's Tables 16-17, beside its own figures) and inference time
(Table 18)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from lrworld.models.registry import capabilities
from lrworld.paper import figures as paper


def whitespace_tokens(text: str) -> int:
    return len(text.split())


def tiktoken_counter(name: str) -> Callable[[str], int]:
    """`tiktoken` (GPT-3.5-Turbo's cl100k_base, as the paper's Tables 16-17 count) or
    `tiktoken:<encoding>`. cl100k_base and o200k_base are read from the files installed with
    lrworld (lrworld/models/input_tokens.py); tiktoken downloads any other encoding's BPE file on
    first use, so offline it must already be in TIKTOKEN_CACHE_DIR."""
    import tiktoken

    from lrworld.models.input_tokens import offline_encoding

    encoding = name.partition(":")[2] or "cl100k_base"
    try:
        enc = offline_encoding(encoding) or tiktoken.get_encoding(encoding)
    except Exception as e:  # a download refused or a missing cache: one line, not the HTTP stack
        raise ValueError(f"analysis.tokenizer: {name!r}: tiktoken could not load the {encoding} BPE file "
                         f"({type(e).__name__}); offline, put it in TIKTOKEN_CACHE_DIR") from None
    return lambda text: len(enc.encode(text, disallowed_special=()))


def make_counter(name: str, models: dict | None = None) -> Callable[[str], int]:
    """'whitespace', 'tiktoken[:<encoding>]', or the name of a configured model whose backend has a
    tokenizer (hf), which counts the tokens."""
    if name == "whitespace":
        return whitespace_tokens
    if name.startswith("tiktoken"):
        return tiktoken_counter(name)
    cfg = (models or {}).get(name)
    tokenizer = capabilities(cfg).tokenizer if cfg is not None else None
    if tokenizer is None:
        raise ValueError(f"analysis.tokenizer: {name!r} is neither 'whitespace', 'tiktoken[:<encoding>]' nor a "
                         f"model entry whose backend has a tokenizer (hf)")
    return tokenizer(name, cfg)


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


def beside_paper(table: pd.DataFrame, paper_dataset: str | None) -> pd.DataFrame:
    """The prompt-token table with the paper's Tables 16-17 beside each zero-shot row: its total
    (GPT-3.5-Turbo's count), its question count and so its mean per question, and ours / its mean."""
    counts = paper.question_counts().get(paper_dataset or "", {})
    out = table.copy()
    totals = [paper.prompt_tokens_total(paper_dataset, m) if paper_dataset and v == "zero_shot" else None
              for m, v in zip(out["measure"], out["variant"])]
    out["paper_tokens_total"] = [float("nan") if t is None else t for t in totals]
    out["paper_n"] = [counts.get(m) if t is not None else None for m, t in zip(out["measure"], totals)]
    out["paper_tokens_mean"] = [t / n if t is not None and n else float("nan") for t, n in zip(totals, out["paper_n"])]
    out["mean_vs_paper"] = out["prompt_tokens_mean"] / out["paper_tokens_mean"]
    return out


def paper_note(dataset: str, paper_dataset: str | None, tokenizer: str) -> str:
    """Where our prompt-token figures differ from the paper's by construction."""
    if paper_dataset not in paper.TOKENS_TABLE:
        return f"{dataset}: the paper has no token table for this dataset."
    diffs = [f"the paper's figures (its Table {paper.TOKENS_TABLE[paper_dataset]}) are over its own LRWorld-"
             f"{paper_dataset} data and question counts (paper_n, from its Tables 12-14), ours over {dataset}'s"]
    if not tokenizer.startswith("tiktoken"):
        diffs.append(f"it counted with GPT-3.5-Turbo's API (cl100k_base), we with {tokenizer!r} (set "
                     "analysis.tokenizer: tiktoken to count with cl100k_base)")
    diffs.append("its totals may include the chat wrapper the API adds per message; a mean ratio near 1 says the "
                 "prompts are of the paper's length")
    return "; ".join(diffs) + "."


def usage_and_time(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Backend-reported tokens in/out (API usage or the local tokenizer) and seconds per question,
    per (model, measure, variant)."""
    usage, time = [], []
    for (model, measure, variant), g in frame.groupby(["model", "measure", "variant"], sort=False):
        key = {"model": model, "measure": measure, "variant": variant, "n": len(g)}
        usage.append({**key, **_stats("tokens_in", g["tokens_in"]), **_stats("tokens_out", g["tokens_out"])})
        time.append({**key, **_stats("latency_s", g["latency_s"])})
    return pd.DataFrame(usage), pd.DataFrame(time)
