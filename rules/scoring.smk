# Responses and scores per (dataset, model, measure, variant), one job per (dataset, model, measure), and the paper-style table per dataset.
from lrworld.workflow import report_notes


rule score:
    # The cells of a (dataset, model, measure), one per variant: their responses read from the
    # cache (no model is loaded), and their scores. One job, not one per variant.
    input:
        **W.score_inputs(),
        # ancient: a new answer job (another measure's prompts changed) must not re-run these
        # cells; their own prompts, the model's config and the code still do. Plain under
        # `--forcerun answer`: the re-asked replies are scored in the same invocation.
        answered=answers_input("results/answers/lrworld/{dataset}/{model}.json"),
        code_stamp="results/code/score.json",
        # not ancient: new weights re-score every cell (the answers were asked again)
        identity=W.IDENTITY,
    output:
        **W.score_outputs(),
    params:
        cache_dir=config["cache_dir"],
        model_cfg=lambda wc: W.model_params(wc.model),
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        variants=VARIANTS,
        # the replies its cells read: a re-asked model re-scores (the summary itself is ancient)
        replies=lambda wc: W.score_replies(wc),
        code=W.code("score.py"),
    log:
        "logs/score/{dataset}/{model}/{measure}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/score.py"


rule score_extra:
    # One cell of a measure's extra_variants (a dataset's `extra_variants`): the same script, one
    # variant; `score` does every measure's `variants`.
    input:
        prompts="results/prompts/{dataset}/{measure}/{variant}.jsonl",
        answered=answers_input("results/answers/lrworld/{dataset}/{model}.json"),
        code_stamp="results/code/score.json",
        identity=W.IDENTITY,
    output:
        responses="results/responses/%s.jsonl" % W.EXTRA_CELL,
        score="results/scores/%s.json" % W.EXTRA_CELL,
        job=W.EXTRA_SCORE_JOB,
    wildcard_constraints:
        variant=alt(W.extra_variants),
    params:
        cache_dir=config["cache_dir"],
        model_cfg=lambda wc: W.model_params(wc.model),
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        variants=lambda wc: [wc.variant],
        replies=lambda wc: W.score_replies(wc, [wc.variant]),
        code=W.code("score.py"),
    log:
        "logs/score/{dataset}/{model}/{measure}/{variant}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/score.py"


rule table:
    input:
        scores=lambda wc: W.score_files(wc.dataset),
        # per-question correctness for the intervals and the paired test against random
        responses=lambda wc: W.responses_files(wc.dataset),
        # a measure with fewer questions than asked gets a mark and its reason in the caption
        question_reports=lambda wc: W.question_files(wc.dataset, ".report.json"),
        # its shortcut findings mark the columns a knowledge-free answerer passes (docs/audit.md)
        audit="results/audit/{dataset}.json",
        # downstream of the answer job through score's ancient edge: its code re-runs it through a
        # stamp, as score's does (rules/code.smk)
        code_stamp="results/code/table.json",
    output:
        csv=report("results/tables/{dataset}.csv", caption="../docs/report/table.rst", category="Results",
                   subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "results (csv)"}),
        md=report("results/tables/{dataset}.md", caption="../docs/report/table.rst", category="Results",
                  subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "results"}),
        tex="results/tables/{dataset}.tex",
        # every cell beside the LRWorld paper's (lrworld/scoring/paper_comparison.py)
        paper_csv="results/tables/{dataset}.paper.csv",
        paper_md=report("results/tables/{dataset}.paper.md", caption="../docs/report/table.rst", category="Results",
                        subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "beside the paper"}),
        job="results/provenance/{dataset}/table-job.json",
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        models=list(MODELS),
        paper_dataset=lambda wc: W.paper_dataset(wc.dataset),
        paper_names=W.paper_names(),
        paper_figures=W.paper_digest(),
        bootstrap=WA.bootstrap,
        # the caption's § and ‡ lines (docs/report/table.rst), read from the question reports when
        # the report is made; derived from the input, so never a reason to re-run
        caption_notes=lambda wc, input: report_notes.table_notes(input.question_reports, input.audit),
        code=W.code("table.py"),
    log:
        "logs/table/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/table.py"
