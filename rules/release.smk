# Datasets scored from a benchmark release (`source: {benchmark: <folder>}`, or `{url, sha256}` of
# an archive of one, docs/release.md): the release's files are copied, each checked against its
# manifest sha256, to where ingest, the question builders and prompts would write them; the rest
# of the graph (audit, answer, score, provenance, tables) runs on them as on a built dataset.


# Copying files: not worth a cluster job.
localrules:
    fetch_benchmark,
    release_data,
    release_questions,
    release_prompts,


ruleorder: release_data > ingest
ruleorder: release_questions > questions
ruleorder: release_questions > gt_questions
ruleorder: release_prompts > prompts


# A release at a URL: downloaded (its sha256 checked), unpacked safely and verified against its
# manifest, then moved to results/release/<dataset>/ in one rename (lrworld/release/fetch.py).
# Its manifest is the one declared file: the copies below read the folder beside it and check
# each file's sha256 again. It runs where Snakemake runs: compute nodes often have no network.
rule fetch_benchmark:
    output:
        manifest="results/release/{dataset}/release.json",
    wildcard_constraints:
        dataset=alt(W.fetched_benchmarks),
    params:
        source=lambda wc: DATASETS[wc.dataset]["source"]["benchmark"],
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        downloads=lambda wc: f"results/raw/{wc.dataset}/.downloads",
        code=W.code("fetch_benchmark.py"),
    log:
        "logs/fetch_benchmark/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/fetch_benchmark.py"


rule release_data:
    input:
        manifest=lambda wc: W.release_manifest(wc.dataset),
        files=lambda wc: W.release_files("data", wc)[0],
    output:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        users="results/data/{dataset}/users.parquet",
        report="results/data/{dataset}/ingest_report.json",
    wildcard_constraints:
        dataset=alt(W.benchmarks),
    params:
        files=lambda wc: W.release_files("data", wc)[1],
        # the pinned sha256 of release.json (source.release_sha256), checked before any copy
        pin=lambda wc: W.release_pin(wc.dataset),
        # content, not mtimes: a swapped or edited release folder re-runs the copy
        sha256=lambda wc: W.release_digests("data", wc),
        code=W.code("release_files.py"),
    log:
        "logs/release/{dataset}/data.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/release_files.py"


rule release_questions:
    input:
        manifest=lambda wc: W.release_manifest(wc.dataset),
        files=lambda wc: W.release_files("questions", wc)[0],
    output:
        questions="results/questions/{dataset}/{measure}.jsonl",
        report="results/questions/{dataset}/{measure}.report.json",
    wildcard_constraints:
        dataset=alt(W.benchmarks),
    params:
        files=lambda wc: W.release_files("questions", wc)[1],
        # the pinned sha256 of release.json (source.release_sha256), checked before any copy
        pin=lambda wc: W.release_pin(wc.dataset),
        # content, not mtimes: a swapped or edited release folder re-runs the copy
        sha256=lambda wc: W.release_digests("questions", wc),
        code=W.code("release_files.py"),
    log:
        "logs/release/{dataset}/{measure}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/release_files.py"


rule release_prompts:
    input:
        manifest=lambda wc: W.release_manifest(wc.dataset),
        files=lambda wc: W.release_files("prompts", wc)[0],
    output:
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
    wildcard_constraints:
        dataset=alt(W.benchmarks),
    params:
        files=lambda wc: W.release_files("prompts", wc)[1],
        # the pinned sha256 of release.json (source.release_sha256), checked before any copy
        pin=lambda wc: W.release_pin(wc.dataset),
        # content, not mtimes: a swapped or edited release folder re-runs the copy
        sha256=lambda wc: W.release_digests("prompts", wc),
        code=W.code("release_files.py"),
    log:
        "logs/release/{dataset}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/release_files.py"
