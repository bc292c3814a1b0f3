# The benchmark audit (docs/audit.md): every question and prompt file of a dataset is
# checked; a hard check that fails stops the build with one line naming the file, the question id
# and the check, and writes nothing. The LRWorld answer jobs and each score's provenance record
# take the dataset's audit as an input, so no model time goes to, and no number is recorded from,
# questions that failed it. `audit_all` compares the answer slot sequences between datasets (a
# dataset's own audit never reads another dataset's files); the answer jobs wait for it too.


# Reading a dataset's question and prompt files: not worth a cluster job.
localrules:
    audit,
    audit_all,


rule audit:
    input:
        # the raw data and metadata files the knowledge golds are re-derived from
        unpack(lambda wc: W.audit_raw_inputs(wc.dataset)),
        questions=lambda wc: W.question_files(wc.dataset),
        reports=lambda wc: W.question_files(wc.dataset, ".report.json"),
        prompts=lambda wc: W.prompt_files(wc.dataset),
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        ingest_report="results/data/{dataset}/ingest_report.json",
        # the witnessed facts the knowledge golds are re-read from
        facts=lambda wc: W.facts_inputs(wc.dataset),
        # the ground-truth artifacts the HitRate@1 golds are re-derived from
        artifacts=lambda wc: W.audit_artifacts(wc.dataset),
    output:
        json="results/audit/{dataset}.json",
        md=report("results/audit/{dataset}.md", caption="../docs/report/audit.rst", category="Audit",
                  subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "audit"}),
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        measures=lambda wc: list(DATASETS[wc.dataset]["measures"]),
        ingest_cfg=lambda wc: W.ingest_cfg(wc.dataset),
        # a shortcut answerer above chance: warn (reported) or fail (docs/audit.md)
        shortcuts=config.get("audit", {}).get("shortcuts", "warn"),
        # the validity controls' inputs: what a prompt leaves out, their seeds, the rules' transactions
        exclude_values=config["questions"]["exclude_values"],
        user_items=lambda wc: DATASETS[wc.dataset]["user_items_shown"],
        seed=config["seed"],
        assoc_window=W.gt["assoc"]["window"],
        code=W.code("audit.py"),
    log:
        "logs/audit/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/audit.py"


rule audit_all:
    input:
        questions=[f for ds in DATASETS for f in W.question_files(ds)],
    output:
        json="results/audit/_all.json",
    params:
        datasets={ds: list(DATASETS[ds]["measures"]) for ds in DATASETS},
        code=W.code("audit_all.py"),
    log:
        "logs/audit/_all.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/audit_all.py"
