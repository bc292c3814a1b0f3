# The docs quote result figures only through docs/generated/<table>.md: one snippet per results
# table, copied from results/ with its provenance by this rule (lrworld/docsgen/, docs/provenance.md
# "Figures in the docs"). The snippets are committed; a run that reproduces them rewrites them
# byte for byte, so the checkout stays clean. Only the default run (config.yaml alone) writes them;
# any other config writes its snippets under results/docs/generated/ (lrworld/workflow/docs.py).
# `docs_snippets: false` leaves them out of the run.


# Reading a table and hashing a few files: not worth a cluster job.
localrules:
    docs_snippet,


rule docs_snippet:
    input:
        unpack(W.docs.inputs),
    output:
        W.docs.pattern,
    params:
        rule=lambda wc: W.docs.rule_of(wc.table),
        code=W.code("docs_snippet.py"),
    log:
        "logs/docs/{table}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/docs_snippet.py"
