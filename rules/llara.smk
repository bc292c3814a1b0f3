# LLaRA's evaluation (arXiv 2312.02445): next item among 20 frozen candidates, HitRatio@1 and
# valid ratio, for LLMs (through the one `answer` rule, track `llara`) and traditional sequential
# recommenders. Config: config["llara"] (docs/llara.md).


rule llara_candidates:
    input:
        data=lambda wc: WL.inputs(wc.ll_dataset),
    output:
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
        summary="results/llara/{ll_dataset}/candidates.summary.json",
    params:
        inputs_sha256=lambda wc: W.digests.of(WL.inputs(wc.ll_dataset)),
        cfg=lambda wc: WL.datasets[wc.ll_dataset],
        seed=WL.cfg["seed"],
        n_candidates=WL.cfg["n_candidates"],
        code=W.code("llara_candidates.py"),
    log:
        "logs/llara/{ll_dataset}/candidates.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_candidates.py"


rule llara_prompts:
    input:
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
    output:
        prompts="results/llara/{ll_dataset}/prompts.jsonl",
    params:
        template=lambda wc: WL.datasets[wc.ll_dataset].get("template", wc.ll_dataset),
        item_suffix=lambda wc: WL.datasets[wc.ll_dataset].get("item_suffix", ""),
        code=W.code("llara_prompts.py"),
    log:
        "logs/llara/{ll_dataset}/prompts.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_prompts.py"


rule llara_responses:
    input:
        prompts="results/llara/{ll_dataset}/prompts.jsonl",
        answered="results/answers/llara/{ll_dataset}/{llm}.json",
    output:
        responses="results/llara/{ll_dataset}/responses/{llm}.jsonl",
    params:
        cache_dir=config["cache_dir"],
        code=W.code("llara_responses.py"),
    log:
        "logs/llara/{ll_dataset}/responses/{llm}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_responses.py"


# One job per traditional model and training seed (seeds 0..baseline_seeds-1): a killed run keeps
# the seeds already trained, and two seeds can train side by side (one torch thread each).
rule llara_baseline:
    input:
        data=lambda wc: WL.inputs(wc.ll_dataset),
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
    output:
        responses="results/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.jsonl",
        info="results/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.info.json",
        # the trained model: hybrid prompts (llara_train) read its item embeddings
        checkpoint="results/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.pt",
    params:
        inputs_sha256=lambda wc: W.digests.of(WL.inputs(wc.ll_dataset)),
        cfg=lambda wc: WL.datasets[wc.ll_dataset],
        holdout_seed=WL.cfg["seed"],
        max_epochs=lambda wc: WL.max_epochs(wc.ll_dataset),
        hparams=lambda wc: WL.cfg["baseline_hparams"].get(wc.baseline, {}),
        val_fraction=WL.cfg["val_fraction"],
        patience=WL.cfg["patience"],
        code=W.code("llara_baseline.py"),
    threads: 1
    log:
        "logs/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.log",
    benchmark:
        "logs/benchmark/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.tsv"
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_baseline.py"


# LLaRA's own model: projector + LoRA with the curriculum (lrworld/tracks/llara/hybrid/train.py) on a
# base `hf` model and one traditional model's seed; hybrid_share 0 is the text-only LoRA.
rule llara_train:
    input:
        data=lambda wc: WL.inputs(wc.ll_dataset),
        rec_model="results/llara/{ll_dataset}/baseline_{baseline}/seed{ll_seed}.pt",
    output:
        adapter=directory("results/llara/{ll_dataset}/train/{llm}_{baseline}_seed{ll_seed}/adapter"),
        projector="results/llara/{ll_dataset}/train/{llm}_{baseline}_seed{ll_seed}/projector.pt",
        record="results/llara/{ll_dataset}/train/{llm}_{baseline}_seed{ll_seed}/record.json",
    params:
        cfg=lambda wc: WL.datasets[wc.ll_dataset],
        model_cfg=lambda wc: W.model_params(wc.llm),
        hparams=WL.cfg["train"],
        candidate_seed=WL.cfg["seed"],
        n_candidates=WL.cfg["n_candidates"],
        work="results/llara/{ll_dataset}/train/{llm}_{baseline}_seed{ll_seed}/work",
        code=W.code("llara_train.py"),
    threads: 1
    log:
        "logs/llara/{ll_dataset}/train/{llm}_{baseline}_seed{ll_seed}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_train.py"


rule llara_score:
    input:
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
        responses=lambda wc: WL.responses(wc.ll_dataset, wc.row),
    output:
        score="results/llara/{ll_dataset}/scores/{row}.json",
        per_question="results/llara/{ll_dataset}/scores/{row}.per_question.jsonl",
    params:
        code=W.code("llara_score.py"),
    log:
        "logs/llara/{ll_dataset}/score/{row}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_score.py"


rule llara_table:
    input:
        scores=WL.score_files(),
    output:
        csv=report("results/tables/llara.csv", caption="../docs/report/llara_table.rst", category="LLaRA",
                   labels={"table": "csv"}),
        md=report("results/tables/llara.md", caption="../docs/report/llara_table.rst", category="LLaRA",
                  labels={"table": "md"}),
    params:
        paper_datasets=WL.paper_datasets(),
        code=W.code("llara_table.py"),
    log:
        "logs/llara/table.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_table.py"
