# Image captions for the multimodal measure: images (a local folder, or downloads from the items'
# image URLs) described by the configured vision-language model (paper Figure 3).


rule captions:
    input:
        item_table="results/data/{dataset}/items.parquet",
        instruction=W.caption_instruction(),
    output:
        captions="results/captions/{dataset}/captions.parquet",
        report="results/captions/{dataset}/captions.report.json",
    params:
        captioner=config["captioner"],
        cache_dir=config["cache_dir"],
        image_dir=lambda wc: DATASETS[wc.dataset].get("image_dir"),
        code=W.code("captions.py"),
    resources:
        gpu=W.answer_resources(CAPTIONER)["gpu"],
        slurm_partition=W.answer_resources(CAPTIONER)["slurm_partition"],
    threads: 2
    log:
        "logs/captions/{dataset}.log",
    benchmark:
        "logs/benchmark/captions/{dataset}.tsv"
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/captions.py"
