# Provenance: one record per score and one per table, beside the results (results/provenance/).
# Each record's rule declares every file of the chain as an input, so a change anywhere in the
# chain rebuilds the record; `lrworld explain` and `lrworld verify` read them back.


# Reading and hashing a few files: not worth a cluster job each.
localrules:
    provenance,
    provenance_table,


rule provenance:
    input:
        unpack(lambda wc: W.metadata_inputs(wc.dataset)),
        score="results/scores/{dataset}/{model}/{measure}/{variant}.json",
        score_job="results/provenance/{dataset}/{model}/{measure}/{variant}.score-job.json",
        responses="results/responses/{dataset}/{model}/{measure}/{variant}.jsonl",
        summary="results/answers/lrworld/{dataset}/{model}.json",
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
        template=lambda wc: W.template(wc.dataset, wc.measure, wc.variant),
        questions="results/questions/{dataset}/{measure}.jsonl",
        questions_report="results/questions/{dataset}/{measure}.report.json",
        audit="results/audit/{dataset}.json",
        ground_truth=lambda wc: W.gt_chain(wc.dataset, wc.measure),
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        ingest_report="results/data/{dataset}/ingest_report.json",
        raw=lambda wc: W.raw_inputs(wc.dataset),
    output:
        record=report("results/provenance/{dataset}/{model}/{measure}/{variant}.json",
                      caption="../docs/provenance_caption.rst", category="Provenance",
                      subcategory="{dataset}", labels={"model": "{model}", "measure": "{measure}",
                                                       "variant": "{variant}"}),
    params:
        cfg=lambda wc: W.provenance_config(wc.dataset, wc.model, wc.measure, wc.variant),
        rule_code=W.chain_code(rules),
        code=W.code("provenance_score.py"),
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
        records=lambda wc: [f.replace("results/scores/", "results/provenance/", 1) for f in W.score_files(wc.dataset)],
    output:
        record=report("results/provenance/{dataset}/table.json", caption="../docs/provenance_caption.rst",
                      category="Provenance", subcategory="{dataset}", labels={"model": "(table)", "measure": "all",
                                                                              "variant": "all"}),
        md=report("results/provenance/{dataset}/table.md", caption="../docs/provenance_caption.rst",
                  category="Provenance", subcategory="{dataset}", labels={"model": "(table, readable)",
                                                                          "measure": "all", "variant": "all"}),
    params:
        cfg=lambda wc: W.provenance_table_config(wc.dataset),
        code=W.code("provenance_table.py"),
    log:
        "logs/provenance/{dataset}/table.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/provenance_table.py"
