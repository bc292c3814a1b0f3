"""The LLaRA track's steps as plain functions: scripts/llara_*.py call them with Snakemake's
input/output/params, tests call them directly. Every artifact is written atomically."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd

from lrworld.config.assembly import entry_defaults
from lrworld.core.io import read_json, read_jsonl, write_json, write_jsonl, write_text
from lrworld.core.seeding import rng_for
from lrworld.tracks.llara import paper
from lrworld.tracks.llara.candidates import N_CANDIDATES, draw_candidates, summary
from lrworld.tracks.llara.data import LlaraSet, build_from_interactions, load_released
from lrworld.tracks.llara.prompts import build_prompts
from lrworld.tracks.llara.scoring import score_responses, score_seeds
from lrworld.tracks.llara.tables import build_table, to_markdown

BASELINE_PREFIX = "baseline_"


def dataset_inputs(name: str, cfg: dict) -> list[str]:
    """The files a dataset entry reads (Snakemake inputs, so the DAG sees the spine's parquet)."""
    if "interactions" in cfg:
        return [cfg["interactions"], cfg["items"]]
    cfg = entry_defaults(("llara", "datasets"), cfg)
    root = Path(cfg["path"])
    kind = cfg.get("kind", name)
    out = [root / cfg["test_file"]]
    out.append(Path(cfg["titles"]) if cfg.get("titles") else root / ("u.item" if kind == "movielens" else "id2name.txt"))
    out += [root / f for f in [*cfg["train_files"], *cfg["train_expand"]]]
    if cfg.get("train_udata"):
        out.append(Path(cfg["train_udata"]))
    return [str(p) for p in out]


def load_dataset(name: str, cfg: dict) -> LlaraSet:
    """A ``config["llara"]["datasets"][name]`` entry: LLaRA's released files (``path``) or the
    pipeline's aligned tables (``interactions`` + ``items`` parquet)."""
    cfg = entry_defaults(("llara", "datasets"), cfg)
    if "interactions" in cfg:
        if "items" not in cfg:
            raise ValueError(f"llara.datasets.{name}: 'interactions' needs 'items' too")
        return build_from_interactions(pd.read_parquet(cfg["interactions"]), pd.read_parquet(cfg["items"]),
                                       seq_len=cfg["seq_len"], min_len_seq=cfg["min_len_seq"], name=name)
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
    from lrworld.inference.shards import ModelCache
    from lrworld.inference.stage import read_answers

    recs = read_jsonl(prompts)
    cache = ModelCache(cache_dir, model)
    return write_jsonl(out, [{**a, "qid": p["qid"], "model": model, "identity": identity}
                             for p, (_, a) in zip(recs, read_answers(recs, identity, cache))])


def run_baseline(name: str, cfg: dict, candidates: str | os.PathLike, baseline: str, out: str | os.PathLike,
                 max_epochs: int, seed: int, holdout_seed: int, val_fraction: float, patience: int,
                 hparams: dict | None = None, log=print, checkpoint: str | os.PathLike | None = None) -> dict:
    """Train one traditional recommender with one ``seed`` on the dataset's training examples and
    let it pick the highest-scoring candidate of every frozen set. Writes one Response-like
    record per question. Early stopping: validation cross-entropy on a ``val_fraction`` hold-out
    drawn from ``holdout_seed`` (the same for every training seed, so that seeds differ only in
    the model's own randomness), ``patience`` epochs, at most ``max_epochs``."""
    from lrworld.recsys.sequential import cross_entropy, fit, make_model, pick

    ds = load_dataset(name, cfg)
    if not ds.train:
        raise ValueError(f"llara.datasets.{name}: no training examples for baseline {baseline!r}")
    recs = read_jsonl(candidates)
    t0 = time.time()
    model = make_model(baseline, ds.n_items, **(hparams or {}))
    train, val = split_train_val(ds.train, val_fraction, holdout_seed, name)
    vh, vy = [e.history for e in val], [e.next for e in val]
    validate = (lambda: cross_entropy(model, vh, vy)) if val else None
    training = fit(model, [e.history for e in train], [e.next for e in train], max_epochs=max_epochs, seed=seed,
                   log=log, validate=validate, patience=patience if val else None,
                   valid_metric="cross_entropy" if val else None, higher_is_better=False)
    picks, cand_scores = pick(model, [r["history"] for r in recs], [r["candidates"] for r in recs])
    train_s = time.time() - t0
    rows = [{"qid": r["qid"], "raw_text": r["candidate_titles"][k], "choice_index": k, "model": BASELINE_PREFIX + baseline,
             "seed": seed, "candidate_scores": [round(float(s), 6) for s in cs]}
            for r, k, cs in zip(recs, picks, cand_scores)]
    write_jsonl(out, rows)
    if checkpoint is not None:  # LLaRA's hybrid prompts read this model's item embeddings
        from lrworld.recsys.checkpoint import save_rec_model
        save_rec_model(checkpoint, model, baseline, ds.n_items, hparams or {})
    return {"baseline": baseline, "seed": seed, "holdout_seed": holdout_seed, **training.as_dict(),
            "n_train_examples": len(train), "n_val_examples": len(val), "val_fraction": val_fraction,
            "seconds": round(train_s, 1), "hparams": hparams or {}, "train_notes": ds.notes}


def split_train_val(examples: list, fraction: float, seed: int, dataset: str) -> tuple[list, list]:
    """Hold out a seeded ``fraction`` of the training examples for early stopping (never test
    rows); the draw is named by the dataset, so another dataset's hold-out never moves it."""
    if fraction <= 0 or len(examples) < 10:
        return list(examples), []
    k = max(1, int(len(examples) * fraction))
    held = set(rng_for(seed, dataset, "llara_holdout").permutation(len(examples))[:k].tolist())
    return [e for i, e in enumerate(examples) if i not in held], [examples[i] for i in sorted(held)]


def run_score(candidates: str | os.PathLike, responses, model: str, out: str | os.PathLike,
              out_per_question: str | os.PathLike | None = None, seeds: list[int] | None = None) -> dict:
    """``responses``: an LLM's responses file, or a baseline's files (one per training seed, each
    record naming its ``seed``), scored with :func:`score_seeds` (mean ± sd over seeds). ``seeds``:
    a LLaRA-trained row's training seeds, one per responses file (text answers, mean ± sd)."""
    paths = [responses] if isinstance(responses, (str, os.PathLike)) else list(responses)
    cands = read_jsonl(candidates)
    if seeds is not None:
        if len(seeds) != len(paths) or len(set(seeds)) != len(seeds):
            raise ValueError(f"{model}: {len(paths)} responses file(s) for training seeds {seeds}")
        per_q, summ = score_seeds(cands, {s: read_jsonl(p) for s, p in zip(seeds, paths)}, mode="text")
        summ["kind"] = "LLM"
    elif model.startswith(BASELINE_PREFIX):
        by_seed: dict[int, list[dict]] = {}
        for path in paths:
            rows = read_jsonl(path)
            seeds = {r["seed"] for r in rows}
            if len(seeds) != 1 or (seed := seeds.pop()) in by_seed:
                raise ValueError(f"{path}: expected the responses of one training seed not seen before")
            by_seed[seed] = rows
        per_q, summ = score_seeds(cands, by_seed)
        summ["kind"] = "traditional"
    else:
        if len(paths) != 1:
            raise ValueError(f"{model}: an LLM row reads one responses file, got {len(paths)}")
        per_q, summ = score_responses(cands, read_jsonl(paths[0]), mode="text")
        summ["kind"] = "LLM"
    summ["model"] = model
    write_json(out, summ)
    if out_per_question:
        write_jsonl(out_per_question, per_q)
    return summ


def paper_dataset(name: str, cfg: dict) -> str | None:
    """The paper's dataset a config entry is: LLaRA's released files (``path``) of a kind the
    paper reports; None for sets built from interactions tables."""
    kind = cfg.get("kind", name)
    return kind if "path" in cfg and kind in paper.DATASETS else None


def run_table(score_paths: list[str], out_csv: str | os.PathLike, out_md: str | os.PathLike,
              paper_datasets: dict[str, str] | None = None, kinds: dict[str, str] | None = None,
              paper_rows: dict[str, str] | None = None) -> pd.DataFrame:
    """Score files are ``results/llara/{dataset}/scores/{model}.json``: the dataset is the folder
    two levels up, the model the file stem. ``paper_datasets``, ``paper_rows``: see
    :func:`lrworld.tracks.llara.tables.build_table`; ``kinds``: a row's kind instead of its score's
    (LLaRA-trained rows)."""
    scores, row_kinds = {}, {}
    for p in map(Path, score_paths):
        s = read_json(p)
        scores[(p.stem, p.parent.parent.name)] = s
        row_kinds[p.stem] = (kinds or {}).get(p.stem, s.get("kind", ""))
    df = build_table(scores, row_kinds, paper_datasets, paper_rows)
    write_text(out_csv, df.to_csv(index=False))
    write_text(out_md, to_markdown(df))
    return df


__all__ = ["BASELINE_PREFIX", "N_CANDIDATES", "dataset_inputs", "load_dataset", "paper_dataset", "run_baseline",
           "run_candidates", "run_prompts", "run_responses", "run_score", "run_table"]
