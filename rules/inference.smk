# Model answers per (dataset, model, measure, variant), through the durable response cache.


rule responses:
    input:
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
        code=code("models", "inference.py", "scoring/parse.py"),
    output:
        responses="results/responses/{dataset}/{model}/{measure}/{variant}.jsonl",
        summary="results/responses/{dataset}/{model}/{measure}/{variant}.summary.json",
    params:
        model_cfg=lambda wc: MODELS[wc.model],
        cache_dir=config["cache_dir"],
    resources:
        gpu=model_resources,
        gpu_model=model_gpu_model,
        slurm_partition=lambda wc: slurm_partition(model_resources(wc)),
    threads: 2
    log:
        "logs/responses/{dataset}/{model}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/responses.py"
