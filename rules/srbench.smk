# SRBench: NN and LLM sequential recommenders on one footing; config["srbench"] (docs/srbench.md).
# LLM-SR's requests (T runs of every user's prompt) are answered by the one `answer` rule (track
# `srbench`), so a killed run resumes from the cache and a finished one is never re-sampled.


rule srbench_split:
    input:
        data=lambda wc: WS.inputs(wc.sr_dataset),
    output:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
    params:
        inputs_sha256=lambda wc: W.digests.of(WS.inputs(wc.sr_dataset)),
        spec=lambda wc: WS.datasets[wc.sr_dataset],
        code=W.code("srbench_split.py"),
    log:
        "logs/srbench/{sr_dataset}/split.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_split.py"


# One job per baseline and seed: a killed run keeps the seeds already trained, and two seeds can
# train side by side (the models use one thread each).
rule srbench_baseline:
    input:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
    output:
        lists="results/srbench/{sr_dataset}/baselines/{sr_baseline}/seed{sr_seed}.jsonl",
        training="results/srbench/{sr_dataset}/baselines/{sr_baseline}/seed{sr_seed}.training.json",
    params:
        # rerun when this baseline's settings or the list length change
        spec=lambda wc: WS.settings["baselines"][wc.sr_baseline],
        ks=WS.settings["ks"],
        code=W.code("srbench_baseline.py"),
    threads: 1
    log:
        "logs/srbench/{sr_dataset}/baselines/{sr_baseline}/seed{sr_seed}.log",
    benchmark:
        "logs/benchmark/srbench/{sr_dataset}/baselines/{sr_baseline}/seed{sr_seed}.tsv"
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_baseline.py"


rule srbench_prompts:
    input:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
    output:
        prompts="results/srbench/{sr_dataset}/prompts/{mode}.jsonl",
    wildcard_constraints:
        mode=alt(WS.modes),
    params:
        settings=WS.llm_settings(),
        code=W.code("srbench_prompts.py"),
    log:
        "logs/srbench/{sr_dataset}/prompts/{mode}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_prompts.py"


rule srbench_llm_lists:
    input:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
        prompts="results/srbench/{sr_dataset}/prompts/{mode}.jsonl",
        # ancient: another mode's new prompts re-run the answer job, not this mode's lists
        # (plain under `--forcerun answer`, lrworld/workflow/reask.py)
        answered=answers_input("results/answers/srbench/{sr_dataset}/{model}.json"),
        code_stamp="results/code/srbench_llm_lists.json",
    output:
        "results/srbench/{sr_dataset}/lists/{model}__{mode}.jsonl",
    wildcard_constraints:
        model=alt(WS.models),
        mode=alt(WS.modes),
    params:
        cache_dir=config["cache_dir"],
        model_cfg=lambda wc: W.model_params(wc.model),
        kmax=max(WS.settings["ks"]),
        code=W.code("srbench_llm_lists.py"),
    log:
        "logs/srbench/{sr_dataset}/lists/{model}__{mode}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_llm_lists.py"


rule srbench_score:
    input:
        split="results/srbench/{sr_dataset}/split.parquet",
        item_table="results/srbench/{sr_dataset}/items.parquet",
        lists=lambda wc: WS.runs(wc.sr_dataset, wc.recommender, "lists"),
        training=lambda wc: WS.runs(wc.sr_dataset, wc.recommender, "training"),
    output:
        "results/srbench/{sr_dataset}/scores/{recommender}.json",
    params:
        max_users=WS.settings["max_users"],
        overlap=WS.settings["overlap"],
        ks=WS.settings["ks"],
        code=W.code("srbench_score.py"),
    log:
        "logs/srbench/{sr_dataset}/scores/{recommender}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_score.py"


rule srbench_table:
    input:
        scores=lambda wc: WS.score_files(wc.sr_dataset),
    output:
        csv=report("results/tables/srbench_{sr_dataset}.csv", caption="../docs/report/srbench_table.rst",
                   category="SRBench", subcategory="{sr_dataset}", labels={"dataset": "{sr_dataset}", "table": "csv"}),
        md=report("results/tables/srbench_{sr_dataset}.md", caption="../docs/report/srbench_table.rst",
                  category="SRBench", subcategory="{sr_dataset}", labels={"dataset": "{sr_dataset}", "table": "md"}),
    params:
        names=WS.recommenders,
        code=W.code("srbench_table.py"),
    log:
        "logs/srbench/{sr_dataset}/table.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/srbench_table.py"
