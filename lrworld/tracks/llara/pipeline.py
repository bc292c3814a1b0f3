"""The LLaRA track's steps as plain functions: scripts/llara_*.py call them with Snakemake's
input/output/params, tests call them directly. Every artifact is written atomically."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd

from lrworld.core.io import read_json, read_jsonl, write_json, write_jsonl, write_text
from lrworld.tracks.llara.candidates import N_CANDIDATES, draw_candidates, summary
from lrworld.tracks.llara.data import LlaraSet, build_from_interactions, load_released
from lrworld.tracks.llara.prompts import build_prompts
from lrworld.tracks.llara.scoring import score_responses
from lrworld.tracks.llara.tables import build_table, to_markdown

BASELINE_PREFIX = "baseline_"


def dataset_inputs(name: str, cfg: dict) -> list[str]:
    """The files a dataset entry reads (Snakemake inputs, so the DAG sees the spine's parquet)."""
    if "interactions" in cfg:
        return [cfg["interactions"], cfg["items"]]
    root = Path(cfg["path"])
    kind = cfg.get("kind", name)
    out = [root / cfg.get("test_file", "Test_data.jsonl")]
    out.append(Path(cfg["titles"]) if cfg.get("titles") else root / ("u.item" if kind == "movielens" else "id2name.txt"))
    out += [root / f for f in [*cfg.get("train_files", []), *cfg.get("train_expand", [])]]
    if cfg.get("train_udata"):
        out.append(Path(cfg["train_udata"]))
    return [str(p) for p in out]


def load_dataset(name: str, cfg: dict) -> LlaraSet:
    """A ``config["llara"]["datasets"][name]`` entry: LLaRA's released files (``path``) or the
    pipeline's aligned tables (``interactions`` + ``items`` parquet)."""
    if "interactions" in cfg:
        if "items" not in cfg:
            raise ValueError(f"llara.datasets.{name}: 'interactions' needs 'items' too")
        return build_from_interactions(pd.read_parquet(cfg["interactions"]), pd.read_parquet(cfg["items"]),
                                       seq_len=int(cfg.get("seq_len", 10)),
                                       min_len_seq=int(cfg.get("min_len_seq", 3)), name=name)
    if "path" not in cfg:
        raise ValueError(f"llara.datasets.{name}: needs 'path' (LLaRA's files) or 'interactions' + 'items'")
    return load_released(name, cfg)


def run_candidates(name: str, cfg: dict, seed: int, n: int, out: str | os.PathLike,
                   out_summary: str | os.PathLike | None = None) -> dict:
    ds = load_dataset(name, cfg)
    recs = draw_candidates(ds, n=n, seed=seed)
    write_jsonl(out, recs)
    info = {**summary(recs), "dataset": name, "seed": seed, "n_candidates": n, "n_items": len(ds.item_names),
            "n_train_examples": len(ds.train), "notes": ds.notes}
    if out_summary:
        write_json(out_summary, info)
    return info


def run_prompts(candidates: str | os.PathLike, template: str, out: str | os.PathLike, item_suffix: str = "") -> int:
    return write_jsonl(out, build_prompts(read_jsonl(candidates), template, item_suffix))


def run_responses(prompts: str | os.PathLike, model: str, identity: dict, cache_dir: str | os.PathLike,
                  out: str | os.PathLike) -> int:
    """One LLM's answers to the prompts, read from the response cache the `answer` rule filled."""
    from lrworld.inference.cache import ResponseCache
    from lrworld.inference.stage import read_answers

    recs = read_jsonl(prompts)
    cache = ResponseCache(Path(cache_dir) / f"{model}.sqlite")
    return write_jsonl(out, [{**a, "qid": p["qid"], "model": model, "identity": identity}
                             for p, (_, a) in zip(recs, read_answers(recs, identity, cache))])


def run_baseline(name: str, cfg: dict, candidates: str | os.PathLike, baseline: str, out: str | os.PathLike,
                 epochs: int = 20, seed: int = 0, hparams: dict | None = None, val_fraction: float = 0.1,
                 patience: int = 3, log=print) -> dict:
    """Train one traditional recommender on the dataset's training examples and let it pick the
    highest-scoring candidate of every frozen set. Writes one Response-like record per question."""
    import torch

    from lrworld.recsys.sequential import fit, make_model, pick

    torch.set_num_threads(int(os.environ.get("LRWORLD_TORCH_THREADS", "1")))
    ds = load_dataset(name, cfg)
    if not ds.train:
        raise ValueError(f"llara.datasets.{name}: no training examples for baseline {baseline!r}")
    recs = read_jsonl(candidates)
    t0 = time.time()
    model = make_model(baseline, ds.n_items, **(hparams or {}))
    train, val = split_train_val(ds.train, val_fraction, seed)
    losses = fit(model, [e.history for e in train], [e.next for e in train], epochs=epochs, seed=seed, log=log,
                 val=([e.history for e in val], [e.next for e in val]) if val else None, patience=patience)
    picks, cand_scores = pick(model, [r["history"] for r in recs], [r["candidates"] for r in recs])
    train_s = time.time() - t0
    rows = [{"qid": r["qid"], "raw_text": r["candidate_titles"][k], "choice_index": k, "model": BASELINE_PREFIX + baseline,
             "candidate_scores": [round(float(s), 6) for s in cs]}
            for r, k, cs in zip(recs, picks, cand_scores)]
    write_jsonl(out, rows)
    return {"baseline": baseline, "max_epochs": epochs, "best_epoch": getattr(model, "best_epoch", None),
            "seed": seed, "n_train_examples": len(train), "n_val_examples": len(val), "val_fraction": val_fraction,
            "train_losses": losses, "val_losses": getattr(model, "val_losses", []), "seconds": round(train_s, 1),
            "hparams": hparams or {}, "train_notes": ds.notes}


def split_train_val(examples: list, fraction: float, seed: int) -> tuple[list, list]:
    """Hold out a seeded ``fraction`` of the training examples for early stopping (never test rows)."""
    if fraction <= 0 or len(examples) < 10:
        return list(examples), []
    import random

    idx = list(range(len(examples)))
    random.Random(f"llara-val:{seed}").shuffle(idx)
    k = max(1, int(len(idx) * fraction))
    held = set(idx[:k])
    return [e for i, e in enumerate(examples) if i not in held], [examples[i] for i in sorted(held)]


def run_score(candidates: str | os.PathLike, responses: str | os.PathLike, model: str, out: str | os.PathLike,
              out_per_question: str | os.PathLike | None = None) -> dict:
    mode = "index" if model.startswith(BASELINE_PREFIX) else "text"
    per_q, summ = score_responses(read_jsonl(candidates), read_jsonl(responses), mode=mode)
    summ["model"] = model
    summ["kind"] = "traditional" if mode == "index" else "LLM"
    write_json(out, summ)
    if out_per_question:
        write_jsonl(out_per_question, per_q)
    return summ


def run_table(score_paths: list[str], out_csv: str | os.PathLike, out_md: str | os.PathLike) -> pd.DataFrame:
    """Score files are ``results/llara/{dataset}/scores/{model}.json``: the dataset is the folder
    two levels up, the model the file stem."""
    scores, kinds = {}, {}
    for p in map(Path, score_paths):
        s = read_json(p)
        scores[(p.stem, p.parent.parent.name)] = s
        kinds[p.stem] = s.get("kind", "")
    df = build_table(scores, kinds)
    write_text(out_csv, df.to_csv(index=False))
    write_text(out_md, to_markdown(df))
    return df


__all__ = ["BASELINE_PREFIX", "N_CANDIDATES", "dataset_inputs", "load_dataset", "run_baseline", "run_candidates",
           "run_prompts", "run_responses", "run_score", "run_table"]
