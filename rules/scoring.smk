# Scores per (dataset, model, measure, variant) and the paper-style table per dataset.


rule score:
    input:
        responses="results/responses/{dataset}/{model}/{measure}/{variant}.jsonl",
        code=code("scoring", "questions/measures.py", "provenance/environment.py", "provenance/digest.py"),
    output:
        score="results/scores/{dataset}/{model}/{measure}/{variant}.json",
        job="results/provenance/{dataset}/{model}/{measure}/{variant}.score-job.json",
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
    log:
        "logs/score/{dataset}/{model}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/score.py"


rule table:
    input:
        scores=lambda wc: score_files(wc.dataset),
        code=code("scoring/table.py", "questions/measures.py", "provenance/environment.py"),
    output:
        csv="results/tables/{dataset}.csv",
        md="results/tables/{dataset}.md",
        job="results/provenance/{dataset}/table-job.json",
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        models=lambda wc: list(MODELS),
    log:
        "logs/table/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/table.py"
