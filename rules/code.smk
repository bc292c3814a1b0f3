# Code stamps: a file per script that changes exactly when the script's code closure does.
#
# Why: a rule whose input from a re-running job is ancient() (`score` and `srbench_llm_lists`
# read the answer job's summary that way, so that another measure's new prompts do not re-run
# them), or that is downstream of one (`table`), is never checked for changed params while that
# upstream job re-runs: Snakemake 9 masks
# every job downstream of a job that must run and then skips the ancient edge (dag.py,
# update_needrun). A change to a module that both the answer job and the score job import
# (lrworld/inference/stage.py) would re-run the answers and leave the scores stale. The stamp is
# a plain (not ancient) input of those rules, so it re-runs them when, and only when, their own
# code changed.


localrules:
    code_stamp,


rule code_stamp:
    output:
        stamp="results/code/{script}.json",
    params:
        code=lambda wc: W.code(f"{wc.script}.py"),
        files=lambda wc: W.code_files(f"{wc.script}.py"),
    wildcard_constraints:
        script=alt(W.STAMPED_SCRIPTS),
    log:
        "logs/code_stamp/{script}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/code_stamp.py"
