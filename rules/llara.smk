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


# A LLaRA-trained or released row's requests (lrworld/tracks/llara/hybrid/requests.py): the hybrid
# prompt with the item ids its placeholders carry, the text form ([PH]) of a text-only LoRA, or a
# released checkpoint's hybrid prompts with LLaRA's instructions drawn per question.
rule llara_hybrid_requests:
    input:
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
    output:
        requests="results/llara/{ll_dataset}/hybrid_requests/{ll_form}.jsonl",
    params:
        template=lambda wc: WL.request_template(wc.ll_dataset, wc.ll_form),
        seed=WL.cfg["seed"],
        code=W.code("llara_hybrid_requests.py"),
    log:
        "logs/llara/{ll_dataset}/hybrid_requests/{ll_form}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_hybrid_requests.py"


rule llara_responses:
    input:
        prompts=lambda wc: WL.request_file(wc.ll_dataset, wc.llm),
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
# base `hf` model and one traditional model's seed, for each `llara.trained` entry; an entry without
# `rec` (hybrid_share 0) is the text-only LoRA. Sized like its base model's answer job.
rule llara_train:
    input:
        data=lambda wc: WL.inputs(wc.ll_dataset),
        rec_model=lambda wc: WL.rec_checkpoint(wc.ll_dataset, wc.trained) or [],
        valid=lambda wc: WL.valid_inputs(wc.ll_dataset),
    output:
        adapter=directory("results/llara/{ll_dataset}/train/{trained}/adapter"),
        projector="results/llara/{ll_dataset}/train/{trained}/projector.pt",
        record="results/llara/{ll_dataset}/train/{trained}/record.json",
    params:
        cfg=lambda wc: WL.datasets[wc.ll_dataset],
        base=lambda wc: WL.base(wc.trained),
        model_cfg=lambda wc: W.model_params(WL.base(wc.trained)),
        rec_model=lambda wc: WL.rec_checkpoint(wc.ll_dataset, wc.trained),
        hparams=lambda wc: WL.train_hparams(wc.trained, wc.ll_dataset),
        candidate_seed=WL.cfg["seed"],
        n_candidates=WL.cfg["n_candidates"],
        work="results/llara/{ll_dataset}/train/{trained}/work",
        code=W.code("llara_train.py"),
    resources:
        gpu=lambda wc: WL.train_resources(wc.trained, wc.ll_dataset)["gpu"],
        gpu_model=lambda wc: WL.train_resources(wc.trained, wc.ll_dataset)["gpu_model"],
        slurm_partition=lambda wc: WL.train_resources(wc.trained, wc.ll_dataset)["slurm_partition"],
        mem_mb=lambda wc: WL.train_resources(wc.trained, wc.ll_dataset)["mem_mb"],
        runtime=lambda wc: WL.train_resources(wc.trained, wc.ll_dataset)["runtime"],
    threads: 1
    log:
        "logs/llara/{ll_dataset}/train/{trained}.log",
    benchmark:
        "logs/benchmark/llara/{ll_dataset}/train/{trained}.tsv"
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_train.py"


# A released LLaRA model (`llara.checkpoint`): its checkpoint and rec model for one dataset, copied or
# downloaded and checked against their sha256 (lrworld/tracks/llara/hybrid/released.py); the answer
# job reads them through the restricted unpickler (hybrid/pickles.py).
rule llara_released_file:
    output:
        ckpt="results/llara/{ll_dataset}/released/checkpoint.ckpt",
        rec_model="results/llara/{ll_dataset}/released/rec_model.pt",
    params:
        ckpt=lambda wc: WL.released_file(wc.ll_dataset, "ckpt"),
        rec_model=lambda wc: WL.released_file(wc.ll_dataset, "rec_model"),
        code=W.code("llara_released_file.py"),
    log:
        "logs/llara/{ll_dataset}/released.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_released_file.py"


rule llara_score:
    input:
        candidates="results/llara/{ll_dataset}/candidates.jsonl",
        responses=lambda wc: WL.responses(wc.ll_dataset, wc.row),
    output:
        score="results/llara/{ll_dataset}/scores/{row}.json",
        per_question="results/llara/{ll_dataset}/scores/{row}.per_question.jsonl",
    params:
        # a LLaRA-trained row of several training seeds: one responses file per seed, mean ± sd
        seeds=lambda wc: WL.row_seeds(wc.row),
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
        # LLaRA-trained rows: their kind and the paper's row in the same role
        row_kinds=WL.row_kinds(),
        paper_rows=WL.paper_rows(),
        code=W.code("llara_table.py"),
    log:
        "logs/llara/table.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/llara_table.py"
