# Provenance: one record per score and one per table, beside the results (results/provenance/).
# Each record's rule declares every file of the chain as an input, so a change anywhere in the
# chain rebuilds the record; `lrworld explain` and `lrworld verify` read them back.

# Reading and hashing a few files: not worth a cluster job each.
localrules:
    provenance,
    provenance_table,


CHAIN_RULES = ("fetch_raw", "ingest", "assoc_rules", "similar_pairs", "neumf", "prototypes", "gt_questions",
               "questions", "prompts", "audit", "answer", "responses", "score")


def rule_code(name):
    """The package modules a rule declares with code(...) and its script, read from the rule itself
    so the record follows the graph without a second list to keep in sync."""
    proxy = getattr(rules, name)
    files = getattr(proxy.input, "code", None) or []
    files = {str(files)} if isinstance(files, str) else {str(f) for f in files}
    if proxy.rule.script:  # the script: entry point too
        files.add(str((Path(str(proxy.rule.basedir)) / proxy.rule.script).resolve()))
    return sorted(files)


def provenance_config(wc):
    """The config subset that shaped one score (hashed and shown in its record)."""
    return {"seed": config["seed"], "questions": config["questions"], "measure": wc.measure,
            "variant": wc.variant, "dataset": {wc.dataset: DATASETS[wc.dataset]},
            "model": {wc.model: MODELS[wc.model]}}


rule provenance:
    input:
        unpack(metadata_inputs),
        score="results/scores/{dataset}/{model}/{measure}/{variant}.json",
        score_job="results/provenance/{dataset}/{model}/{measure}/{variant}.score-job.json",
        responses="results/responses/{dataset}/{model}/{measure}/{variant}.jsonl",
        summary="results/responses/{dataset}/{model}/answered.json",
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
        template=template_for,
        questions="results/questions/{dataset}/{measure}.jsonl",
        questions_report="results/questions/{dataset}/{measure}.report.json",
        audit="results/audit/{dataset}.json",
        ground_truth=ground_truth_files,
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        ingest_report="results/data/{dataset}/ingest_report.json",
        raw=raw_inputs,
        code=code("provenance/__init__.py", "provenance/environment.py", "provenance/record.py", "scoring/table.py"),
    output:
        record=report("results/provenance/{dataset}/{model}/{measure}/{variant}.json",
                      caption="../docs/provenance_caption.rst", category="Provenance",
                      subcategory="{dataset}", labels={"model": "{model}", "measure": "{measure}",
                                                       "variant": "{variant}"}),
    params:
        cfg=provenance_config,
        rule_code={r: rule_code(r) for r in CHAIN_RULES},
        root=workflow.basedir,
    log:
        "logs/provenance/{dataset}/{model}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/provenance_score.py"


rule provenance_table:
    input:
        csv="results/tables/{dataset}.csv",
        md="results/tables/{dataset}.md",
        table_job="results/provenance/{dataset}/table-job.json",
        records=lambda wc: [f.replace("results/scores/", "results/provenance/", 1) for f in score_files(wc.dataset)],
        code=code("provenance/__init__.py", "provenance/environment.py", "provenance/record.py", "scoring/table.py"),
    output:
        record=report("results/provenance/{dataset}/table.json", caption="../docs/provenance_caption.rst",
                      category="Provenance", subcategory="{dataset}", labels={"model": "(table)", "measure": "all",
                                                                              "variant": "all"}),
        md=report("results/provenance/{dataset}/table.md", caption="../docs/provenance_caption.rst",
                  category="Provenance", subcategory="{dataset}", labels={"model": "(table, readable)",
                                                                          "measure": "all", "variant": "all"}),
    params:
        cfg=lambda wc: {"seed": config["seed"], "questions": config["questions"], "variants": VARIANTS,
                        "dataset": {wc.dataset: DATASETS[wc.dataset]}, "models": MODELS},
        root=workflow.basedir,
    log:
        "logs/provenance/{dataset}/table.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/provenance_table.py"
