# The one inference stage. Every model call of every track goes through `answer`: one job per
# (track, scope, model) loads the weights once and asks every request of the scope that is not yet
# in the durable cache (lrworld/inference/stage.py). Per-file jobs then read their answers from the
# cache without loading any model: LRWorld's `score` (rules/scoring.smk), and each track's own
# collector.


rule answer:
    input:
        # a track's request files; not LRWorld's prompts: the audit below reads every one of them
        # and stands for them (lrworld/workflow/plan.py:answer_requests)
        requests=lambda wc: W.answer_requests(wc.track, wc.scope, wc.model),
        # the audit first: no model time goes to questions that fail it
        gate=lambda wc: W.gate(wc.track, wc.scope),
        # the digest of the weights: new bytes in a local model folder re-ask the answers
        identity=W.IDENTITY,
        # a LLaRA-trained row's adapter, projector and rec model (none for other models)
        trained=lambda wc: W.answer_inputs(wc.track, wc.scope, wc.model),
    output:
        answered="results/answers/{track}/{scope}/{model}.json",
    params:
        # every request file the job answers (a changed list re-runs it)
        requests=lambda wc: W.requests(wc.track, wc.scope, wc.model),
        model_cfg=lambda wc: W.answer_params(wc.track, wc.scope, wc.model),
        cache_dir=config["cache_dir"],
        code=W.code("answer.py"),
    resources:
        gpu=lambda wc: W.answer_resources(wc.model)["gpu"],
        gpu_model=lambda wc: W.answer_resources(wc.model)["gpu_model"],
        slurm_partition=lambda wc: W.answer_resources(wc.model)["slurm_partition"],
        # sized by the model and its request files (lrworld/workflow/resources.py, docs/slurm.md);
        # <TBD> in a dry run until the requests exist, evaluated again before submission
        mem_mb=lambda wc, attempt: W.answer_mem_mb(wc.model, attempt),
        runtime=lambda wc, attempt: W.answer_runtime(wc.model, W.requests(wc.track, wc.scope, wc.model), attempt),
    threads: 2
    log:
        "logs/answer/{track}/{scope}/{model}.log",
    benchmark:
        "logs/benchmark/answer/{track}/{scope}/{model}.tsv"
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/answer.py"


localrules:
    model_identity,


rule model_identity:
    # The weights part of a model's identity (lrworld/models/backends/hf.py:planned_weights),
    # carried as params: a local folder's files are re-hashed only when their size, mtime, ctime
    # or inode changed, so new bytes (even `cp -p` with the old mtime) re-run this rule, and
    # through its output the answers and every score that reads them.
    output:
        identity="results/models/{model}.identity.json",
    params:
        weights=lambda wc: W.model_weights(wc.model),
        code=W.code("model_identity.py"),
    log:
        "logs/model_identity/{model}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/model_identity.py"
