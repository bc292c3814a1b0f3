# LLaRA's evaluation (arXiv 2312.02445) as its own rules. Draft: the lead includes it from the
# Snakefile (`include: "rules/llara.smk"`) and adds `llara_all` to the default target.
#
# config["llara"]:
#   seed: 0                       # candidate draw + baseline training
#   n_candidates: 20
#   epochs: 30                    # baselines' maximum; per dataset: datasets.<d>.epochs
#   val_fraction: 0.1             # training examples held out for early stopping
#   patience: 3
#   baselines: [popularity, gru4rec, caser, sasrec]
#   baseline_hparams: {sasrec: {n_layers: 2}}   # optional, per baseline
#   models: [random]              # LLMs from config["models"] (default: all of them)
#   datasets:
#     movielens: {path: ../shared/data/llara/movielens, titles: .../u.item, train_udata: .../u.data, template: movielens}
#     steam: {path: ..., train_files: [train_data_first1000.jsonl], train_expand: [Val_data.jsonl], template: steam}
#     lastfm: {path: ..., train_files: [train_data.jsonl], template: lastfm}
#     ml100k_loo: {interactions: results/data/movielens-100k/interactions.parquet, items: .../items.parquet, template: generic}

from lrworld.llara.pipeline import BASELINE_PREFIX, dataset_inputs

LLARA = config.get("llara", {})
LLARA_DATASETS = LLARA.get("datasets", {})
LLARA_BASELINES = LLARA.get("baselines", ["popularity", "gru4rec", "caser", "sasrec"])
LLARA_MODELS = LLARA.get("models", list(config.get("models", {})))
LLARA_ROWS = list(LLARA_MODELS) + [BASELINE_PREFIX + b for b in LLARA_BASELINES]


def _llara_ds(wc):
    if wc.dataset not in LLARA_DATASETS:
        raise ValueError(f"llara.datasets has no entry {wc.dataset!r}; known: {sorted(LLARA_DATASETS)}")
    return LLARA_DATASETS[wc.dataset]


rule llara_all:
    input:
        "results/tables/llara.csv",
        "results/tables/llara.md",


rule llara_candidates:
    input:
        lambda wc: dataset_inputs(wc.dataset, _llara_ds(wc)),
    output:
        candidates="results/llara/{dataset}/candidates.jsonl",
        summary="results/llara/{dataset}/candidates.summary.json",
    params:
        cfg=_llara_ds,
        seed=LLARA.get("seed", 0),
        n_candidates=LLARA.get("n_candidates", 20),
    script:
        "../scripts/llara_candidates.py"


rule llara_prompts:
    input:
        candidates="results/llara/{dataset}/candidates.jsonl",
    output:
        prompts="results/llara/{dataset}/prompts.jsonl",
    params:
        template=lambda wc: _llara_ds(wc).get("template", wc.dataset),
        item_suffix=lambda wc: _llara_ds(wc).get("item_suffix", ""),
    script:
        "../scripts/llara_prompts.py"


rule llara_answer:
    input:
        prompts="results/llara/{dataset}/prompts.jsonl",
    output:
        responses="results/llara/{dataset}/responses/{model}.jsonl",
    params:
        model_cfg=lambda wc: config["models"][wc.model],
    wildcard_constraints:
        model="(?!" + BASELINE_PREFIX + ")[^/]+",
    script:
        "../scripts/llara_answer.py"


rule llara_baseline:
    input:
        lambda wc: dataset_inputs(wc.dataset, _llara_ds(wc)),
        candidates="results/llara/{dataset}/candidates.jsonl",
    output:
        responses="results/llara/{dataset}/baseline_{name}.jsonl",
        info="results/llara/{dataset}/baseline_{name}.info.json",
    params:
        cfg=_llara_ds,
        seed=LLARA.get("seed", 0),
        epochs=lambda wc: _llara_ds(wc).get("epochs", LLARA.get("epochs", 30)),
        hparams=lambda wc: LLARA.get("baseline_hparams", {}).get(wc.name, {}),
        val_fraction=LLARA.get("val_fraction", 0.1),
        patience=LLARA.get("patience", 3),
    wildcard_constraints:
        name="[a-z0-9]+",
    script:
        "../scripts/llara_baseline.py"


def _llara_responses(wc):
    if wc.model.startswith(BASELINE_PREFIX):
        return f"results/llara/{wc.dataset}/{wc.model}.jsonl"
    return f"results/llara/{wc.dataset}/responses/{wc.model}.jsonl"


rule llara_score:
    input:
        candidates="results/llara/{dataset}/candidates.jsonl",
        responses=_llara_responses,
    output:
        score="results/llara/{dataset}/scores/{model}.json",
        per_question="results/llara/{dataset}/scores/{model}.per_question.jsonl",
    wildcard_constraints:
        model="[^/.]+",
    script:
        "../scripts/llara_score.py"


rule llara_table:
    input:
        scores=expand("results/llara/{dataset}/scores/{model}.json", dataset=list(LLARA_DATASETS), model=LLARA_ROWS),
    output:
        csv="results/tables/llara.csv",
        md="results/tables/llara.md",
    script:
        "../scripts/llara_table.py"
