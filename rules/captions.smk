# Image captions for the measure that shows item images (paper Figure 3): item images (a local
# folder, ABO image files, or checked downloads of the items' untrusted image URLs) become requests
# that the configured vision-language model answers through the one `answer` rule (track `captions`).


# Downloads: on a cluster they run where Snakemake runs, since compute nodes often have no network.
localrules:
    caption_requests,


rule caption_requests:
    input:
        item_table="results/data/{dataset}/items.parquet",
    output:
        requests="results/captions/{dataset}/requests.jsonl",
        images_report="results/captions/{dataset}/images.report.json",
    params:
        # by name and content (a moved checkout must not re-plan; new bytes re-run it)
        instruction=W.caption_instruction(),
        instruction_sha256=W.source_digest(W.caption_instruction()),
        captioner=W.captioner_params(),
        cache_dir=config["cache_dir"],
        image_dir=lambda wc: DATASETS[wc.dataset].get("image_dir"),
        code=W.code("caption_requests.py"),
    log:
        "logs/captions/{dataset}/requests.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/caption_requests.py"


rule captions:
    input:
        requests="results/captions/{dataset}/requests.jsonl",
        images_report="results/captions/{dataset}/images.report.json",
        answered="results/answers/captions/{dataset}/captioner.json",
    output:
        captions="results/captions/{dataset}/captions.parquet",
        report="results/captions/{dataset}/captions.report.json",
    params:
        cache_dir=config["cache_dir"],
        code=W.code("captions.py"),
    log:
        "logs/captions/{dataset}/captions.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/captions.py"
