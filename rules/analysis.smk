# Analyses of the paper's tables and figures (docs/analysis.md), rebuilt from the graph's files:
# scores with bootstrap CIs and paired differences, slot distributions and position bias,
# popularity bias, token and time statistics, noise drop, model size, k-shot, and one card per
# measure for `snakemake --report` (the plan: lrworld/workflow/analysis.py).
from lrworld.workflow import report_notes


localrules:
    analysis_cards,


rule analysis_scores:
    input:
        responses=lambda wc: W.responses_files(wc.dataset),
    output:
        long="results/analysis/{dataset}/scores.csv",
        paired="results/analysis/{dataset}/paired.csv",
        paired_html=report("results/analysis/{dataset}/paired.html", caption="../docs/report/paired.rst", category="Scores",
                           subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "paired", "figure": ""}),
        **table_outputs("scores", "scores", "Scores"),
        **plot_outputs("scores", "scores_plot", "Scores"),
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        models=list(MODELS),
        **WA.bootstrap,
        code=W.code("analysis_scores.py"),
    log:
        "logs/analysis/{dataset}/scores.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_scores.py"


rule analysis_slots:
    input:
        questions=lambda wc: WA.question_files(wc.dataset),
        prompts=lambda wc: WA.shuffle_prompts(wc.dataset),
    output:
        **table_outputs("slots", "slots", "Position bias"),
    params:
        code=W.code("analysis_slots.py"),
    log:
        "logs/analysis/{dataset}/slots.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_slots.py"


rule analysis_position:
    input:
        scores="results/analysis/{dataset}/scores.csv",
    output:
        **table_outputs("position", "position", "Position bias"),
        **plot_outputs("position", "position_plot", "Position bias"),
    params:
        code=W.code("analysis_position.py"),
    log:
        "logs/analysis/{dataset}/position.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_position.py"


rule analysis_popularity:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        questions=lambda wc: WA.question_files(wc.dataset),
        responses=lambda wc: WA.popularity_responses(wc.dataset),
    output:
        **table_outputs("popularity", "popularity", "Popularity bias"),
        **plot_outputs("popularity", "popularity_plot", "Popularity bias"),
    params:
        code=W.code("analysis_popularity.py"),
    log:
        "logs/analysis/{dataset}/popularity.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_popularity.py"


rule analysis_tokens:
    input:
        prompts=lambda wc: W.prompt_files(wc.dataset),
        responses=lambda wc: W.responses_files(wc.dataset),
    output:
        **table_outputs("prompt_tokens", "prompt_tokens", "Tokens and time"),
        **table_outputs("usage", "usage", "Tokens and time"),
        **table_outputs("latency", "latency", "Tokens and time"),
    params:
        tokenizer=config["analysis"]["tokenizer"],
        tokenizer_cfg=WA.tokenizer_cfg(),
        paper_dataset=lambda wc: W.paper_dataset(wc.dataset),
        paper_figures=W.paper_digest(),
        code=W.code("analysis_tokens.py"),
    log:
        "logs/analysis/{dataset}/tokens.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_tokens.py"


rule analysis_noise:
    input:
        scores="results/analysis/{dataset}/scores.csv",
        paired="results/analysis/{dataset}/paired.csv",
    output:
        **table_outputs("noise_drop", "noise_drop", "Ablations"),
        **plot_outputs("noise_drop", "noise_drop_plot", "Ablations"),
    params:
        what="noise",
        code=W.code("analysis_ablation.py"),
    log:
        "logs/analysis/{dataset}/noise.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_ablation.py"


rule analysis_model_size:
    input:
        scores="results/analysis/{dataset}/scores.csv",
        paired="results/analysis/{dataset}/paired.csv",
    output:
        **table_outputs("model_size", "model_size", "Ablations"),
    params:
        what="model_size",
        pairs=WA.model_pairs,
        code=W.code("analysis_ablation.py"),
    log:
        "logs/analysis/{dataset}/model_size.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_ablation.py"


rule analysis_kshot:
    input:
        scores="results/analysis/{dataset}/scores.csv",
        paired="results/analysis/{dataset}/paired.csv",
    output:
        **table_outputs("kshot", "kshot", "Ablations"),
        **plot_outputs("kshot", "kshot_plot", "Ablations"),
    params:
        what="kshot",
        k=config["analysis"]["kshot"]["k"],
        code=W.code("analysis_ablation.py"),
    log:
        "logs/analysis/{dataset}/kshot.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_ablation.py"


rule analysis_cards:
    input:
        scores="results/analysis/{dataset}/scores.csv",
        prompts=lambda wc: f"results/prompts/{wc.dataset}/{wc.measure}/{WA.card_variant}.jsonl",
        # a measure with fewer questions than asked: the card shows why (`short`)
        questions_report="results/questions/{dataset}/{measure}.report.json",
        # its validity controls: ¶ a knowledge-free answerer above chance, ∅ not answerable from the data
        audit="results/audit/{dataset}.json",
    output:
        card=report("results/analysis/{dataset}/cards/{measure}.html", caption="../docs/report/card.rst", category="Measure cards",
                    subcategory="{dataset}", labels={"dataset": "{dataset}", "measure": "{measure}"}),
    params:
        # by package-relative name and content, as in `prompts` (a moved checkout must not re-plan)
        template=lambda wc: W.template(wc.dataset, wc.measure, WA.card_variant),
        template_sha256=lambda wc: W.source_digest(W.template(wc.dataset, wc.measure, WA.card_variant)),
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        models=list(MODELS),
        paper_dataset=lambda wc: W.paper_dataset(wc.dataset),
        paper_names=W.paper_names(),
        paper_figures=W.paper_digest(),
        # the caption's §, ‡, ¶ and ∅ lines (docs/report/card.rst); derived from the input: never a re-run
        caption_notes=lambda wc, input: report_notes.table_notes([input.questions_report], input.audit, wc.measure),
        code=W.code("analysis_cards.py"),
    log:
        "logs/analysis/{dataset}/cards/{measure}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/analysis_cards.py"
