# Questions (seeded, per measure) and their prompts (per template variant).

include: "captions.smk"


def caption_inputs(wildcards):
    """The multimodal measure shows items by their image captions."""
    if wildcards.measure == "multimodal":
        return {"captions": f"results/captions/{wildcards.dataset}/captions.parquet"}
    return {}


rule questions:
    input:
        unpack(caption_inputs),
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        code=code("questions", "questions/measures.py"),
    output:
        questions="results/questions/{dataset}/{measure}.jsonl",
        report="results/questions/{dataset}/{measure}.report.json",
    wildcard_constraints:
        # the five HitRate@1 measures come from gt_questions (rules/groundtruth.smk)
        measure=_alt([m for m in MEASURES if m not in GT_MEASURES]) or "(?!)",
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        history_length=config["questions"]["history_length"],
        per_measure=config["questions"]["per_measure"],
        seed=config["seed"],
        ties=config["questions"]["ties"],
        exclude_values=config["questions"]["exclude_values"],
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
