# Analyses of the paper's tables and figures (docs/analysis.md), rebuilt from the graph's files:
# scores with bootstrap CIs and paired differences, slot distributions and position bias,
# popularity bias, token and time statistics, noise drop, model size, k-shot, and one card per
# measure for `snakemake --report`. Every analysis is switched on by config (variants and
# `analysis:`), never by code.
from lrworld.prompts.variants import kind as variant_kind

ANALYSIS = config.get("analysis", {})
ANALYSIS_ON = ANALYSIS.get("enabled", False)
A_OUT = "results/analysis/{dataset}"
SHUFFLES = [v for v in VARIANTS if variant_kind(v) == "shuffle"]
KSHOTS = [v for v in VARIANTS if variant_kind(v) == "kshot"]
for _i, _p in enumerate(ANALYSIS.get("model_pairs", [])):
    for _k in ("small", "large"):
        if _p[_k] not in config["models"]:
            raise WorkflowError(f"config: analysis.model_pairs[{_i}].{_k}: unknown model {_p[_k]!r}")
# pairs naming a disabled model are skipped (the paper's pairs can stay in the config)
# the card shows the zero_shot prompt (or the first configured variant's)
CARD_VARIANT = "zero_shot" if "zero_shot" in VARIANTS else VARIANTS[0]
MODEL_PAIRS = [p for p in ANALYSIS.get("model_pairs", []) if p["small"] in MODELS and p["large"] in MODELS]
_tok = ANALYSIS.get("tokenizer", "whitespace")
if ANALYSIS_ON and _tok != "whitespace" and MODELS.get(_tok, {}).get("backend") != "hf":
    raise WorkflowError(f"config: analysis.tokenizer: {_tok!r} is neither 'whitespace' nor an enabled hf model")


def _table(name, caption, category, subcategory="{dataset}"):
    """An analysis table: CSV, Markdown, LaTeX, and HTML (the one shown in the report)."""
    stem = f"{A_OUT}/tables/{name}"
    return {f"{name}_csv": stem + ".csv", f"{name}_md": stem + ".md", f"{name}_tex": stem + ".tex",
            f"{name}_html": report(stem + ".html", caption=f"../docs/report/{caption}.rst", category=category,
                                   subcategory=subcategory, labels={"dataset": "{dataset}", "table": name, "figure": ""})}


def _plot(name, caption, category):
    stem = f"{A_OUT}/plots/{name}"
    return {f"{name}_png": report(stem + ".png", caption=f"../docs/report/{caption}.rst", category=category,
                                  subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "", "figure": name}),
            f"{name}_svg": stem + ".svg"}


def responses_files(dataset, variants=None):
    return expand("results/responses/{dataset}/{model}/{measure}/{variant}.jsonl", dataset=dataset,
                  model=MODELS, measure=DATASETS[dataset]["measures"], variant=variants or VARIANTS)


def analysis_targets():
    if not ANALYSIS_ON:
        return []
    out = []
    for ds in DATASETS:
        d = f"results/analysis/{ds}"
        out += [f"{d}/tables/scores.csv", f"{d}/tables/slots.csv", f"{d}/tables/popularity.csv",
                f"{d}/tables/prompt_tokens.csv", f"{d}/tables/latency.csv"]
        out += [f"{d}/cards/{m}.html" for m in DATASETS[ds]["measures"]] if ANALYSIS.get("report_cards", True) else []
        if SHUFFLES:
            out.append(f"{d}/tables/position.csv")
        if "noisy" in VARIANTS and "zero_shot" in VARIANTS:
            out.append(f"{d}/tables/noise_drop.csv")
        if MODEL_PAIRS:
            out.append(f"{d}/tables/model_size.csv")
        if KSHOTS:
            out.append(f"{d}/tables/kshot.csv")
    return out


A_PARAMS = dict(n_boot=ANALYSIS.get("bootstrap", 1000), confidence=ANALYSIS.get("confidence", 0.95),
                seed=ANALYSIS.get("seed", 0))

localrules:
    analysis_cards,


rule analysis_scores:
    input:
        responses=lambda wc: responses_files(wc.dataset),
        code=code("analysis", "scoring/table.py", "questions/measures.py", "questions/seeding.py"),
    output:
        long=f"{A_OUT}/scores.csv",
        paired=f"{A_OUT}/paired.csv",
        paired_html=report(f"{A_OUT}/paired.html", caption="../docs/report/paired.rst", category="Scores",
                           subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "paired", "figure": ""}),
        **_table("scores", "scores", "Scores"),
        **_plot("scores", "scores_plot", "Scores"),
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        models=list(MODELS),
        **A_PARAMS,
    log:
        "logs/analysis/{dataset}/scores.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_scores.py"


rule analysis_slots:
    input:
        questions=lambda wc: expand("results/questions/{dataset}/{measure}.jsonl", dataset=wc.dataset,
                                    measure=DATASETS[wc.dataset]["measures"]),
        prompts=lambda wc: expand("results/prompts/{dataset}/{measure}/{variant}.jsonl", dataset=wc.dataset,
                                  measure=DATASETS[wc.dataset]["measures"], variant=SHUFFLES),
        code=code("analysis", "prompts"),
    output:
        **_table("slots", "slots", "Position bias"),
    log:
        "logs/analysis/{dataset}/slots.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_slots.py"


rule analysis_position:
    input:
        scores=f"{A_OUT}/scores.csv",
        code=code("analysis", "prompts"),
    output:
        **_table("position", "position", "Position bias"),
        **_plot("position", "position_plot", "Position bias"),
    log:
        "logs/analysis/{dataset}/position.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_position.py"


rule analysis_popularity:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        questions=lambda wc: expand("results/questions/{dataset}/{measure}.jsonl", dataset=wc.dataset,
                                    measure=DATASETS[wc.dataset]["measures"]),
        responses=lambda wc: responses_files(wc.dataset, ["zero_shot"] if "zero_shot" in VARIANTS else None),
        code=code("analysis"),
    output:
        **_table("popularity", "popularity", "Popularity bias"),
        **_plot("popularity", "popularity_plot", "Popularity bias"),
    log:
        "logs/analysis/{dataset}/popularity.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_popularity.py"


rule analysis_tokens:
    input:
        prompts=lambda wc: prompt_files(wc.dataset),
        responses=lambda wc: responses_files(wc.dataset),
        code=code("analysis"),
    output:
        **_table("prompt_tokens", "prompt_tokens", "Tokens and time"),
        **_table("usage", "usage", "Tokens and time"),
        **_table("latency", "latency", "Tokens and time"),
    params:
        tokenizer=ANALYSIS.get("tokenizer", "whitespace"),
        tokenizer_cfg=lambda wc: MODELS.get(ANALYSIS.get("tokenizer", "whitespace")),
    log:
        "logs/analysis/{dataset}/tokens.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_tokens.py"


rule analysis_noise:
    input:
        scores=f"{A_OUT}/scores.csv",
        paired=f"{A_OUT}/paired.csv",
        code=code("analysis"),
    output:
        **_table("noise_drop", "noise_drop", "Ablations"),
        **_plot("noise_drop", "noise_drop_plot", "Ablations"),
    params:
        what="noise",
    log:
        "logs/analysis/{dataset}/noise.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_ablation.py"


rule analysis_model_size:
    input:
        scores=f"{A_OUT}/scores.csv",
        paired=f"{A_OUT}/paired.csv",
        code=code("analysis"),
    output:
        **_table("model_size", "model_size", "Ablations"),
    params:
        what="model_size",
        pairs=MODEL_PAIRS,
    log:
        "logs/analysis/{dataset}/model_size.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_ablation.py"


rule analysis_kshot:
    input:
        scores=f"{A_OUT}/scores.csv",
        paired=f"{A_OUT}/paired.csv",
        code=code("analysis"),
    output:
        **_table("kshot", "kshot", "Ablations"),
        **_plot("kshot", "kshot_plot", "Ablations"),
    params:
        what="kshot",
        k=ANALYSIS.get("kshot", {}).get("k", 3),
    log:
        "logs/analysis/{dataset}/kshot.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_ablation.py"


rule analysis_cards:
    input:
        scores=f"{A_OUT}/scores.csv",
        prompts=lambda wc: f"results/prompts/{wc.dataset}/{wc.measure}/{CARD_VARIANT}.jsonl",
        template=lambda wc: str(template_path(DATASETS[wc.dataset]["domain"], wc.measure,
                                              template_variant(CARD_VARIANT))),
        code=code("analysis", "questions/measures.py"),
    output:
        card=report(f"{A_OUT}/cards/{{measure}}.html", caption="../docs/report/card.rst", category="Measure cards",
                    subcategory="{dataset}", labels={"dataset": "{dataset}", "measure": "{measure}"}),
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        models=list(MODELS),
    log:
        "logs/analysis/{dataset}/cards/{measure}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_cards.py"
