"""The SRBench pipeline steps called by ``scripts/srbench_*.py`` (rules/srbench.smk).

``config["srbench"]`` (keys and defaults: the ``srbench`` section of
lrworld/schema/config.schema.yaml; a commented example in config/srbench.yaml)::

    datasets:        {name: {loader: ml100k_raw|contract|beauty|yelp, <paths>}}
    ks:              [5, 10, 20]       # list lengths of the table
    runs:            10                # T for LLM-SR (identical prompts, run index in the qid)
    nn_runs:         10                # T for NN-SR (one training per seed 0..T-1, one job each)
    overlap:         union             # ARR overlap: union | pairwise
    max_users:       null              # score a seeded sample of this many users (all if null)
    baselines:       {popularity: {}, ncf: {max_epochs: 300, patience: 10, ...}, ...}
    llm:             {models: [names in config["models"]], modes: [few_shot|full], max_history: 50}

Recommender names in file paths: a baseline's name, or ``<model>__<mode>`` for an LLM (whose
requests and lists are made by ``lrworld.tracks.srbench.llm``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from lrworld.core import io
from lrworld.config.assembly import with_defaults
from lrworld.core.seeding import rng_for
from lrworld.tracks.srbench import data as D
from lrworld.tracks.srbench import llm, runner, tables


def settings(config: Mapping) -> dict:
    """``config["srbench"]`` with the schema's defaults (already there inside Snakemake)."""
    return with_defaults(dict(config))["srbench"]


def baselines(config: Mapping) -> list[str]:
    return list(settings(config)["baselines"])


def recommenders(config: Mapping) -> list[str]:
    """Every recommender name of the table, baselines first."""
    s = settings(config)
    names = list(s["baselines"])
    names += [f"{m}__{mode}" for m in s["llm"]["models"] for mode in s["llm"]["modes"]]
    return names


def nn_seeds(config: Mapping) -> list[int]:
    """The training seeds of every NN baseline: 0..nn_runs-1 (one job and one run each)."""
    return list(range(int(settings(config)["nn_runs"])))


def _beauty(spec: Mapping) -> tuple[pd.DataFrame, pd.DataFrame]:
    inter, items = D.load_beauty_sequences(spec["sequences"])
    reviews = D.load_amazon_reviews(spec["reviews"]) if spec.get("reviews") else None
    meta = D.load_amazon_meta(spec["meta"], set(items["item_id"])) if spec.get("meta") else None
    return D.attach_amazon(inter, items, reviews, meta)


# An SRBench dataset's `loader` -> (spec -> (interactions, items)); the config schema lists the same names.
LOADERS = {
    "contract": lambda spec: (pd.read_parquet(spec["interactions"]), pd.read_parquet(spec["items"])),  # the spine's files
    "ml100k_raw": lambda spec: D.ml100k_from_raw(spec["raw_dir"]),
    "beauty": _beauty,
    "yelp": lambda spec: D.load_yelp(spec["review"], spec["business"], kcore=int(spec.get("kcore", 5))),
}


def load_dataset(name: str, spec: Mapping) -> tuple[pd.DataFrame, pd.DataFrame]:
    loader = spec.get("loader")
    if loader not in LOADERS:
        raise ValueError(f"srbench.datasets.{name}.loader: unknown loader {loader!r} ({', '.join(LOADERS)})")
    return LOADERS[loader](spec)


def split(name: str, spec: Mapping, out_split: str | Path, out_items: str | Path) -> None:
    inter, items = load_dataset(name, spec)
    sd = D.make_split(inter, items, name)
    io.write_parquet(out_split, sd.interactions)
    io.write_parquet(out_items, sd.items)


def load_split(split_path: str | Path, items_path: str | Path, name: str = "") -> D.SplitData:
    items = pd.read_parquet(items_path)
    items["genres"] = items["genres"].map(lambda g: [str(x) for x in g] if g is not None else [])
    return D.SplitData(pd.read_parquet(split_path), items, name)


def select_users(sd: D.SplitData, max_users: int | None, seed: int = 0) -> list[str]:
    """All evaluated users, or a seeded sample of ``max_users`` of them (kept in id order), the
    same for every recommender of the dataset; the sample's stream is named by the dataset."""
    users = sd.eval_users
    if max_users and max_users < len(users):
        rng = rng_for(seed, sd.name, "srbench_users")
        keep = {users[i] for i in rng.choice(len(users), size=max_users, replace=False)}
        users = [u for u in users if u in keep]
    return users


def baseline(dataset: str, name: str, seed: int, split_path, items_path, out_jsonl, out_training,
             config: Mapping, log=None) -> dict:
    """Train one NN baseline with one seed and write its lists for every evaluated user (run =
    seed) and its training record (epochs run, best epoch, validation curve)."""
    s = settings(config)
    sd = load_split(split_path, items_path, dataset)
    rec = runner.make_recommender(name, s["baselines"][name])
    records, training = runner.run_baseline(rec, sd, max(s["ks"]), seed, log=log)
    io.write_jsonl(out_jsonl, records)
    info = {"dataset": dataset, "recommender": name, **training}
    io.write_json(out_training, info)
    return info


def llm_prompts(dataset: str, mode: str, split_path, items_path, out_jsonl, settings_: Mapping) -> int:
    """LLM-SR requests of one mode: T runs of every evaluated user (the `answer` rule asks them)."""
    sd = load_split(split_path, items_path, dataset)
    users = select_users(sd, settings_["max_users"])
    return io.write_jsonl(out_jsonl, llm.requests(sd, dataset, users, max(settings_["ks"]), int(settings_["runs"]),
                                                  mode, settings_["max_history"]))


def llm_lists(dataset: str, model: str, split_path, items_path, prompts_path, identity: dict, cache_dir,
              out_jsonl, kmax: int) -> list[dict]:
    """One LLM's lists, read from the response cache the `answer` rule filled."""
    from lrworld.inference.shards import ModelCache
    from lrworld.inference.stage import read_answers

    reqs = io.read_jsonl(prompts_path)
    cache = ModelCache(cache_dir, model)
    records = llm.lists(reqs, [a for _, a in read_answers(reqs, identity, cache)],
                        load_split(split_path, items_path, dataset), kmax)
    io.write_jsonl(out_jsonl, records)
    return records


def score(dataset: str, split_path, items_path, lists_paths: Sequence, out_json, config: Mapping,
          training_paths: Sequence = ()) -> dict:
    """Metrics of one recommender over the selected users (``max_users``): ``lists_paths`` are
    its records (one file per seed for a baseline, one for an LLM), ``training_paths`` the
    baselines' training records, copied into the score file (``training``, one per seed)."""
    s = settings(config)
    sd = load_split(split_path, items_path, dataset)
    records = [r for p in lists_paths for r in io.read_jsonl(p)]
    out = runner.score_records(records, sd, s["ks"], s["overlap"], users=select_users(sd, s["max_users"]))
    out["overlap"] = s["overlap"]
    if training_paths:
        out["training"] = [io.read_json(p) for p in training_paths]
    io.write_json(out_json, out)
    return out


def table(names: Sequence[str], score_paths: Sequence[str | Path], out_csv, out_md, config: Mapping, dataset: str = "") -> None:
    s = settings(config)
    scores = {n: io.read_json(p) for n, p in zip(names, score_paths)}
    t = tables.dataset_table(scores, s["ks"])
    rs = tables.rank_sum(t)
    full = t.join(rs.add_suffix("_points"))
    with io.atomic_path(out_csv) as tmp:
        full.to_csv(tmp)
    md = (f"# SRBench: {dataset}\n\n" + tables.to_markdown(tables.with_errors(t))
          + "\nRecall and NDCG: mean ± standard error over the runs (NN: one training per seed).\n"
          + "\n## Rank-sum (best = most points)\n\n" + tables.to_markdown(rs, digits=1))
    io.write_text(out_md, md)
