# LLaRA's evaluation (arXiv 2312.02445): next item among 20 frozen candidates, HitRatio@1 and
# valid ratio, for LLMs (through the spine's backends and response cache) and traditional
# sequential recommenders. Config: config["llara"] (docs/llara.md). Wildcards of its own
# (`ll_dataset`, `llm`, `baseline`, `row`) keep it apart from the LRWorld graph.
from lrworld.tracks.llara.pipeline import BASELINE_PREFIX, dataset_inputs, paper_dataset

LLARA = config["llara"]  # schema defaults filled (rules/common.smk)
LLARA_DATASETS = LLARA["datasets"]
LLARA_BASELINES = LLARA["baselines"]
LLARA_SEEDS = list(range(LLARA["baseline_seeds"]))
LLARA_MODELS = [m for m in LLARA.get("models", list(MODELS)) if m in MODELS]
LLARA_ROWS = LLARA_MODELS + [BASELINE_PREFIX + b for b in LLARA_BASELINES]


wildcard_constraints:
    ll_dataset=_alt(LLARA_DATASETS) if LLARA_DATASETS else "(?!)",
    llm=_alt(LLARA_MODELS) if LLARA_MODELS else "(?!)",
    baseline=_alt(LLARA_BASELINES) if LLARA_BASELINES else "(?!)",
    row=_alt(LLARA_ROWS) if LLARA_ROWS else "(?!)",
    ll_seed=r"\d+",


def llara_targets():
    return ["results/tables/llara.csv", "results/tables/llara.md"] if LLARA_DATASETS else []


def _llara_ds(wc):
    return LLARA_DATASETS[wc.ll_dataset]


rule llara_candidates:
    input:
        data=lambda wc: dataset_inputs(wc.ll_dataset, _llara_ds(wc)),
        code=code("tracks/llara"),
    output:
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
        summary="results/llara/{ll_dataset}/candidates.summary.json",
    params:
        cfg=_llara_ds,
        seed=LLARA["seed"],
        n_candidates=LLARA["n_candidates"],
    log:
        "logs/llara/{ll_dataset}/candidates.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_candidates.py"


rule llara_prompts:
    input:
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
        code=code("tracks/llara/prompts.py", "tracks/llara/pipeline.py"),
    output:
        prompts="results/llara/{ll_dataset}/prompts.jsonl",
    params:
        template=lambda wc: _llara_ds(wc).get("template", wc.ll_dataset),
        item_suffix=lambda wc: _llara_ds(wc).get("item_suffix", ""),
    log:
        "logs/llara/{ll_dataset}/prompts.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_prompts.py"


rule llara_answer:
    input:
        prompts="results/llara/{ll_dataset}/prompts.jsonl",
        code=code("tracks/llara/pipeline.py", "models", "inference"),
    output:
        responses="results/llara/{ll_dataset}/responses/{llm}.jsonl",
    params:
        model_cfg=lambda wc: MODELS[wc.llm],
        cache_dir=config["cache_dir"],
    resources:
        gpu=lambda wc: gpus_for(wc.llm),
        slurm_partition=lambda wc: slurm_partition(gpus_for(wc.llm)),
    log:
        "logs/llara/{ll_dataset}/answer/{llm}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_answer.py"


# One job per traditional model and training seed (seeds 0..baseline_seeds-1): a killed run keeps
# the seeds already trained, and two seeds can train side by side (one torch thread each).
rule llara_baseline:
    input:
        data=lambda wc: dataset_inputs(wc.ll_dataset, _llara_ds(wc)),
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
        code=code("tracks/llara", "recsys"),
    output:
        responses="results/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.jsonl",
        info="results/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.info.json",
    params:
        cfg=_llara_ds,
        holdout_seed=LLARA["seed"],
        max_epochs=lambda wc: _llara_ds(wc).get("max_epochs", LLARA["max_epochs"]),
        hparams=lambda wc: LLARA["baseline_hparams"].get(wc.baseline, {}),
        val_fraction=LLARA["val_fraction"],
        patience=LLARA["patience"],
    threads: 1
    log:
        "logs/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_baseline.py"


def _llara_responses(wc):
    if wc.row.startswith(BASELINE_PREFIX):
        return [f"results/llara/{wc.ll_dataset}/{wc.row}/seed{s}.jsonl" for s in LLARA_SEEDS]
    return f"results/llara/{wc.ll_dataset}/responses/{wc.row}.jsonl"


rule llara_score:
    input:
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
        responses=_llara_responses,
        code=code("tracks/llara/parse.py", "tracks/llara/metrics.py", "tracks/llara/scoring.py", "tracks/llara/pipeline.py",
                  "tracks/llara/paper.py", "tracks/llara/tables.py"),
    output:
        score="results/llara/{ll_dataset}/scores/{row}.json",
        per_question="results/llara/{ll_dataset}/scores/{row}.per_question.jsonl",
    log:
        "logs/llara/{ll_dataset}/score/{row}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_score.py"


rule llara_table:
    input:
        scores=expand("results/llara/{ll_dataset}/scores/{row}.json", ll_dataset=list(LLARA_DATASETS), row=LLARA_ROWS),
        code=code("tracks/llara/tables.py", "tracks/llara/paper.py", "tracks/llara/pipeline.py"),
    output:
        csv="results/tables/llara.csv",
        md="results/tables/llara.md",
    params:
        # our dataset name -> the paper's dataset (LLaRA's released sets), for the paper's columns
        paper_datasets={d: paper_dataset(d, c) for d, c in LLARA_DATASETS.items() if paper_dataset(d, c)},
    log:
        "logs/llara/table.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_table.py"
