# SRBench (issue 10): NN and LLM sequential recommenders on one footing; config["srbench"]
# (docs/srbench.md). Its datasets use their own wildcard, `sr_dataset`, so their names never
# collide with the LRWorld datasets'.
from lrworld.tracks.srbench.steps import recommenders as _srbench_recommenders

SRBENCH = config.get("srbench", {})
SR_DATASETS = SRBENCH.get("datasets", {})
# Keys of a dataset spec that name input files (the `contract` loader reads the spine's outputs).
_SR_FILE_KEYS = ("interactions", "items", "sequences", "reviews", "meta", "review", "business")


wildcard_constraints:
    sr_dataset=_alt(SR_DATASETS) if SR_DATASETS else "(?!)",
    recommender=_alt(_srbench_recommenders(config)) if SR_DATASETS else "(?!)",


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


rule srbench_score:
    input:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
        lists="results/srbench/{sr_dataset}/lists/{recommender}.jsonl",
        code=code("tracks/srbench/metrics.py", "tracks/srbench/steps.py"),
    output:
        "results/srbench/{sr_dataset}/scores/{recommender}.json",
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
