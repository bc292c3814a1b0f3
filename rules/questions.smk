# Questions (seeded, per measure) and their prompts (per template variant).


rule questions:
    input:
        unpack(lambda wc: W.caption_inputs(wc.dataset, wc.measure)),
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
    output:
        questions="results/questions/{dataset}/{measure}.jsonl",
        report="results/questions/{dataset}/{measure}.report.json",
    wildcard_constraints:
        # the five HitRate@1 measures come from gt_questions (rules/groundtruth.smk)
        measure=alt([m for m in W.measures if m not in W.gt_measures]),
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        history_length=config["questions"]["history_length"],
        per_measure=lambda wc: W.n_questions(wc.dataset, wc.measure),
        seed=config["seed"],
        ties=config["questions"]["ties"],
        distractors=config["questions"]["distractors"],
        max_gold_share=config["questions"]["max_gold_share"],
        validity=config["questions"]["validity"],  # the filter against the negative controls
        exclude_values=config["questions"]["exclude_values"],
        code=W.code("questions.py"),
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
        # a variant that sends an item's image (visual): the captioned images and their sha256
        images=lambda wc: W.prompt_images(wc.dataset, wc.variant),
    output:
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
    params:
        # the packaged template by name and content, not as an input file: a moved checkout or
        # another venv has it under another absolute path and must not re-plan
        template=lambda wc: W.template(wc.dataset, wc.measure, wc.variant),
        template_sha256=lambda wc: W.source_digest(W.template(wc.dataset, wc.measure, wc.variant)),
        # variant transforms (kshot, noisy, shuffle<s>) draw from these; zero_shot/cot ignore them
        seed=config["seed"],
        kshot_k=config["analysis"]["kshot"]["k"],
        # excluded values ("IMAX") are not shown inside item texts either: options, histories
        exclude_values=config["questions"]["exclude_values"],
        user_items=lambda wc: DATASETS[wc.dataset]["user_items_shown"],
        code=W.code("prompts.py"),
    log:
        "logs/prompts/{dataset}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/prompts.py"
