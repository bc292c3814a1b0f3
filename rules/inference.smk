# Model answers. One `answer` job per (dataset, model) loads the weights once and asks every
# prompt of the dataset that is not yet in the durable cache; the per-(measure, variant)
# `responses` jobs then read their answers from the cache without loading any model.


rule answer:
    input:
        prompts=lambda wc: prompt_files(wc.dataset),
        code=code("models", "inference"),
    output:
        answered="results/responses/{dataset}/{model}/answered.json",
    params:
        model_cfg=lambda wc: MODELS[wc.model],
        cache_dir=config["cache_dir"],
    resources:
        gpu=model_resources,
        gpu_model=model_gpu_model,
        slurm_partition=lambda wc: slurm_partition(model_resources(wc)),
    threads: 2
    log:
        "logs/answer/{dataset}/{model}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/answer.py"


rule responses:
    input:
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
        # ancient: a new answer job (another measure's prompts changed) must not re-run this
        # measure's responses; its own prompts, the model's config and the code still do.
        answered=ancient("results/responses/{dataset}/{model}/answered.json"),
        code=code("inference/cache.py", "inference", "scoring/parse.py"),
    output:
        responses="results/responses/{dataset}/{model}/{measure}/{variant}.jsonl",
    params:
        cache_dir=config["cache_dir"],
        model_cfg=lambda wc: MODELS[wc.model],
    log:
        "logs/responses/{dataset}/{model}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/responses.py"
