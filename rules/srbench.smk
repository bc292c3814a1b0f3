# SRBench (issue 10). DRAFT for the lead to include from the Snakefile:
#   include: "rules/srbench.smk"   and add   srbench_targets()   to rule all's inputs.
# Config: config["srbench"] (see docs/srbench.md); LLM names refer to config["models"].
from lrworld.srbench.steps import recommenders as _srbench_recommenders


def srbench_targets():
    ds = list(config.get("srbench", {}).get("datasets", {}))
    return expand("results/tables/srbench_{dataset}.{ext}", dataset=ds, ext=["csv", "md"])


rule srbench_split:
    output:
        split="results/srbench/{dataset}/split.parquet",
        item_table="results/srbench/{dataset}/items.parquet",
    log:
        "logs/srbench/{dataset}/split.log",
    script:
        "../scripts/srbench_split.py"


rule srbench_lists:
    input:
        split="results/srbench/{dataset}/split.parquet",
        item_table="results/srbench/{dataset}/items.parquet",
    output:
        "results/srbench/{dataset}/lists/{recommender}.jsonl",
    params:
        # rerun when the recommender's settings change
        srbench={k: v for k, v in config.get("srbench", {}).items() if k != "datasets"},
    threads: 1
    log:
        "logs/srbench/{dataset}/lists/{recommender}.log",
    script:
        "../scripts/srbench_lists.py"


rule srbench_score:
    input:
        split="results/srbench/{dataset}/split.parquet",
        item_table="results/srbench/{dataset}/items.parquet",
        lists="results/srbench/{dataset}/lists/{recommender}.jsonl",
    output:
        "results/srbench/{dataset}/scores/{recommender}.json",
    log:
        "logs/srbench/{dataset}/scores/{recommender}.log",
    script:
        "../scripts/srbench_score.py"


rule srbench_table:
    input:
        scores=lambda w: expand("results/srbench/{dataset}/scores/{recommender}.json",
                                dataset=w.dataset, recommender=_srbench_recommenders(config)),
    output:
        csv="results/tables/srbench_{dataset}.csv",
        md="results/tables/srbench_{dataset}.md",
    params:
        names=lambda w: _srbench_recommenders(config),
    log:
        "logs/srbench/{dataset}/table.log",
    script:
        "../scripts/srbench_table.py"
