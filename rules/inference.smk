# The one inference stage. Every model call of every track goes through `answer`: one job per
# (track, scope, model) loads the weights once and asks every request of the scope that is not yet
# in the durable cache (lrworld/inference/stage.py). Per-file jobs then read their answers from the
# cache without loading any model: `responses` here, and each track's own collector.


rule answer:
    input:
        requests=lambda wc: W.requests(wc.track, wc.scope),
    output:
        answered="results/answers/{track}/{scope}/{model}.json",
    params:
        model_cfg=lambda wc: W.model_cfg(wc.model),
        cache_dir=config["cache_dir"],
        code=W.code("answer.py"),
    resources:
        gpu=lambda wc: W.answer_resources(wc.model)["gpu"],
        gpu_model=lambda wc: W.answer_resources(wc.model)["gpu_model"],
        slurm_partition=lambda wc: W.answer_resources(wc.model)["slurm_partition"],
    threads: 2
    log:
        "logs/answer/{track}/{scope}/{model}.log",
    benchmark:
        "logs/benchmark/answer/{track}/{scope}/{model}.tsv"
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/answer.py"


rule responses:
    input:
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
        # ancient: a new answer job (another measure's prompts changed) must not re-run this
        # measure's responses; its own prompts, the model's config and the code still do.
        answered=ancient("results/answers/lrworld/{dataset}/{model}.json"),
    output:
        responses="results/responses/{dataset}/{model}/{measure}/{variant}.jsonl",
    params:
        cache_dir=config["cache_dir"],
        model_cfg=lambda wc: MODELS[wc.model],
        code=W.code("responses.py"),
    log:
        "logs/responses/{dataset}/{model}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/responses.py"
