# Provenance: one record per score and one per table, beside the results (results/provenance/).
# A record job declares the clock record of the score job whose scores it records (that job writes
# it last, beside every variant's score and responses) and the answer summary; every other file of
# the chain is upstream of the score job, so a change anywhere in the chain rebuilds the record
# through it (lrworld/workflow/plan.py:record_files). `lrworld explain` and `lrworld verify` read
# them back.


# Reading and hashing a few files: not worth a cluster job each.
localrules:
    provenance,
    provenance_extra,
    provenance_table,


rule provenance:
    # The records of a (dataset, model, measure), one per variant: one job, not one per cell.
    input:
        # stands for the job's scores and responses, which the table declares (a missing one is
        # rebuilt through it); the model identity is a plain input of the score job, so new
        # weights re-run the records through it too
        score_job=W.SCORE_JOB,
        # the score jobs read it as ancient; the records cite it, so they follow each new answer job
        summary="results/answers/lrworld/{dataset}/{model}.json",
    output:
        **W.record_outputs(),
    params:
        files=lambda wc: W.record_files(wc.dataset, wc.model, wc.measure),
        cfg=lambda wc: W.provenance_config(wc.dataset, wc.model, wc.measure),
        variants=VARIANTS,
        rule_code=W.chain_code(rules),
        plugins=W.chain_plugins(rules),
        code=W.code("provenance_score.py"),
    log:
        "logs/provenance/{dataset}/{model}/{measure}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/provenance_score.py"


rule provenance_extra:
    # The record of one cell of a measure's extra_variants (`score_extra`'s).
    input:
        score_job=W.EXTRA_SCORE_JOB,
        summary="results/answers/lrworld/{dataset}/{model}.json",
    output:
        report(W.RECORD % "{variant}", caption="../docs/provenance_caption.rst", category="Provenance",
               subcategory="{dataset}", labels={"model": "{model}", "measure": "{measure}", "variant": "{variant}"}),
    wildcard_constraints:
        variant=alt(W.extra_variants),
    params:
        files=lambda wc: W.record_files(wc.dataset, wc.model, wc.measure, [wc.variant]),
        cfg=lambda wc: W.provenance_config(wc.dataset, wc.model, wc.measure, [wc.variant]),
        variants=lambda wc: [wc.variant],
        rule_code=W.chain_code(rules),
        plugins=W.chain_plugins(rules),
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
        records=lambda wc: W.table_records(wc.dataset),
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
