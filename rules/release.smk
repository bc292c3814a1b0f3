# Datasets scored from a benchmark release (`source: {benchmark: <folder>}`, docs/release.md): the
# release's files are copied, each checked against its manifest sha256, to where ingest, the
# question builders and prompts would write them; the rest of the graph (audit, answer, score,
# provenance, tables) runs on them as on a built dataset.


# Copying files: not worth a cluster job.
localrules:
    release_data,
    release_questions,
    release_prompts,


ruleorder: release_data > ingest
ruleorder: release_questions > questions
ruleorder: release_questions > gt_questions
ruleorder: release_prompts > prompts


rule release_data:
    input:
        lambda wc: W.release_files("data", wc)[0],
    output:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        users="results/data/{dataset}/users.parquet",
        report="results/data/{dataset}/ingest_report.json",
    wildcard_constraints:
        dataset=alt(W.benchmarks),
    params:
        sha256=lambda wc: W.release_files("data", wc)[1],
        code=W.code("release_files.py"),
    log:
        "logs/release/{dataset}/data.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/release_files.py"


rule release_questions:
    input:
        lambda wc: W.release_files("questions", wc)[0],
    output:
        questions="results/questions/{dataset}/{measure}.jsonl",
        report="results/questions/{dataset}/{measure}.report.json",
    wildcard_constraints:
        dataset=alt(W.benchmarks),
    params:
        sha256=lambda wc: W.release_files("questions", wc)[1],
        code=W.code("release_files.py"),
    log:
        "logs/release/{dataset}/{measure}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/release_files.py"


rule release_prompts:
    input:
        lambda wc: W.release_files("prompts", wc)[0],
    output:
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
    wildcard_constraints:
        dataset=alt(W.benchmarks),
    params:
        sha256=lambda wc: W.release_files("prompts", wc)[1],
        code=W.code("release_files.py"),
    log:
        "logs/release/{dataset}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/release_files.py"
