# Questions (seeded, per measure) and their prompts (per template variant).


rule questions:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        code=code("questions", "measures.py"),
    output:
        questions="results/questions/{dataset}/{measure}.jsonl",
        report="results/questions/{dataset}/{measure}.report.json",
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        history_length=config["questions"]["history_length"],
        per_measure=config["questions"]["per_measure"],
        seed=config["seed"],
    log:
        "logs/questions/{dataset}/{measure}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/questions.py"


rule prompts:
    input:
        questions="results/questions/{dataset}/{measure}.jsonl",
        item_table="results/data/{dataset}/items.parquet",
        template=template_for,
        code=code("prompts", "questions/seeding.py"),
    output:
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
    params:
        # variant transforms (kshot, noisy, shuffle<s>) draw from these; zero_shot/cot ignore them
        seed=config["seed"],
        kshot_k=config.get("analysis", {}).get("kshot", {}).get("k", 3),
    log:
        "logs/prompts/{dataset}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/prompts.py"
