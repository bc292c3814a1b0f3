# Image captions for the multimodal measure: images (a local folder, or downloads from the items'
# image URLs) described by the configured vision-language model (paper Figure 3).


def captioner_gpus(wildcards):
    c = config.get("captioner", {})
    return c.get("gpus", 1 if c.get("backend", "llava") == "llava" and c.get("device", "") != "cpu" else 0)


rule captions:
    input:
        item_table="results/data/{dataset}/items.parquet",
        instruction=lambda wc: config.get("captioner", {}).get(
            "prompt_file", str(PKG / "templates" / "captions" / "figure3.txt")),
        code=code("captions", "models"),
    output:
        captions="results/captions/{dataset}/captions.parquet",
        report="results/captions/{dataset}/captions.report.json",
    params:
        captioner=lambda wc: config.get("captioner", {}),
        cache_dir=config["cache_dir"],
        image_dir=lambda wc: DATASETS[wc.dataset].get("image_dir"),
    resources:
        gpu=captioner_gpus,
        slurm_partition=lambda wc: slurm_partition(captioner_gpus(wc)),
    threads: 2
    log:
        "logs/captions/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/captions.py"
