# The benchmark audit (issue 14, docs/audit.md): every question and prompt file of a dataset is
# checked; a hard check that fails stops the build with one line naming the file, the question id
# and the check, and writes nothing. Each score's provenance record takes the dataset's audit as an
# input, so no number is recorded from questions that failed it. `audit_all` compares the answer
# slot sequences between datasets (a dataset's own audit never reads another dataset's files, so
# adding a dataset changes no other dataset's audit).


# Reading a dataset's question and prompt files: not worth a cluster job.
localrules:
    audit,
    audit_all,


def audit_targets():
    return expand("results/audit/{dataset}.{ext}", dataset=DATASETS, ext=["json", "md"]) + [
        "results/audit/_all.json"]


def question_files(dataset, suffix=".jsonl"):
    return expand("results/questions/{dataset}/{measure}{suffix}", dataset=dataset,
                  measure=DATASETS[dataset]["measures"], suffix=suffix)


rule audit:
    input:
        questions=lambda wc: question_files(wc.dataset),
        reports=lambda wc: question_files(wc.dataset, ".report.json"),
        prompts=lambda wc: prompt_files(wc.dataset),
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        ingest_report="results/data/{dataset}/ingest_report.json",
        code=code("audit", "questions/display.py", "questions/measures.py", "prompts/variants.py"),
    output:
        json="results/audit/{dataset}.json",
        md="results/audit/{dataset}.md",
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        measures=lambda wc: list(DATASETS[wc.dataset]["measures"]),
    log:
        "logs/audit/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/audit.py"


rule audit_all:
    input:
        questions=[f for ds in DATASETS for f in question_files(ds)],
        code=code("audit"),
    output:
        json="results/audit/_all.json",
    params:
        datasets={ds: list(DATASETS[ds]["measures"]) for ds in DATASETS},
    log:
        "logs/audit/_all.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/audit_all.py"
