# SRBench (issue 10): NN and LLM sequential recommenders on one footing; config["srbench"]
# (docs/srbench.md). Its datasets use their own wildcard, `sr_dataset`, so their names never
# collide with the LRWorld datasets'.
from lrworld.tracks.srbench.steps import baselines as _srbench_baselines
from lrworld.tracks.srbench.steps import nn_seeds as _srbench_seeds
from lrworld.tracks.srbench.steps import recommenders as _srbench_recommenders

SRBENCH = config["srbench"]  # schema defaults filled (rules/common.smk)
SR_DATASETS = SRBENCH["datasets"]
SR_BASELINES = _srbench_baselines(config)
# Keys of a dataset spec that name input files (the `contract` loader reads the spine's outputs).
_SR_FILE_KEYS = ("interactions", "items", "sequences", "reviews", "meta", "review", "business")


wildcard_constraints:
    sr_dataset=_alt(SR_DATASETS) if SR_DATASETS else "(?!)",
    recommender=_alt(_srbench_recommenders(config)) if SR_DATASETS else "(?!)",
    sr_baseline=_alt(SR_BASELINES) if SR_BASELINES else "(?!)",
    sr_seed=r"\d+",


def srbench_targets():
    return expand("results/tables/srbench_{sr_dataset}.{ext}", sr_dataset=SR_DATASETS, ext=["csv", "md"])


def srbench_inputs(wildcards):
    spec = SR_DATASETS[wildcards.sr_dataset]
    files = [spec[k] for k in _SR_FILE_KEYS if spec.get(k)]
    if spec.get("raw_dir"):
        files += [str(Path(spec["raw_dir"]) / f) for f in ("u.data", "u.item")]
    return files


rule srbench_split:
    input:
        data=srbench_inputs,
        code=code("tracks/srbench/data.py", "tracks/srbench/steps.py", "data"),
    output:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
    params:
        spec=lambda wc: SR_DATASETS[wc.sr_dataset],
    log:
        "logs/srbench/{sr_dataset}/split.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_split.py"


rule srbench_lists:
    input:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
        code=code("tracks/srbench", "recsys", "models"),
    output:
        "results/srbench/{sr_dataset}/lists/{recommender}.jsonl",
    params:
        # rerun when the recommender's settings, or an LLM's model entry, change
        srbench={k: v for k, v in SRBENCH.items() if k != "datasets"},
        models=lambda wc: {m: MODELS.get(m) for m in SRBENCH.get("llm", {}).get("models", [])},
    resources:
        gpu=0,
    threads: 2
    log:
        "logs/srbench/{sr_dataset}/lists/{recommender}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_lists.py"


# One job per baseline and seed: a killed run keeps the seeds already trained, and two seeds can
# train side by side (the models use one thread each).
rule srbench_baseline:
    input:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
        code=code("tracks/srbench", "recsys", "core/config.py"),
    output:
        lists="results/srbench/{sr_dataset}/baselines/{sr_baseline}/seed{sr_seed}.jsonl",
        training="results/srbench/{sr_dataset}/baselines/{sr_baseline}/seed{sr_seed}.training.json",
    params:
        # rerun when this baseline's settings or the list length change
        spec=lambda wc: SRBENCH["baselines"][wc.sr_baseline],
        ks=SRBENCH["ks"],
    resources:
        gpu=0,
    threads: 1
    log:
        "logs/srbench/{sr_dataset}/baselines/{sr_baseline}/seed{sr_seed}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_baseline.py"


def _srbench_runs(wc, kind):
    """A baseline's per-seed lists and training records, or an LLM's lists (one file)."""
    if wc.recommender in SR_BASELINES:
        stem = f"results/srbench/{wc.sr_dataset}/baselines/{wc.recommender}/seed"
        ext = ".jsonl" if kind == "lists" else ".training.json"
        return [f"{stem}{s}{ext}" for s in _srbench_seeds(config)]
    return [f"results/srbench/{wc.sr_dataset}/lists/{wc.recommender}.jsonl"] if kind == "lists" else []


rule srbench_score:
    input:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
        lists=lambda wc: _srbench_runs(wc, "lists"),
        training=lambda wc: _srbench_runs(wc, "training"),
        code=code("tracks/srbench/metrics.py", "tracks/srbench/steps.py", "tracks/srbench/runner.py"),
    output:
        "results/srbench/{sr_dataset}/scores/{recommender}.json",
    params:
        max_users=SRBENCH["max_users"],
        overlap=SRBENCH["overlap"],
        ks=SRBENCH["ks"],
    log:
        "logs/srbench/{sr_dataset}/scores/{recommender}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_score.py"


rule srbench_table:
    input:
        scores=lambda wc: expand("results/srbench/{sr_dataset}/scores/{recommender}.json",
                                 sr_dataset=wc.sr_dataset, recommender=_srbench_recommenders(config)),
        code=code("tracks/srbench/tables.py"),
    output:
        csv="results/tables/srbench_{sr_dataset}.csv",
        md="results/tables/srbench_{sr_dataset}.md",
    params:
        names=lambda wc: _srbench_recommenders(config),
    log:
        "logs/srbench/{sr_dataset}/table.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_table.py"
