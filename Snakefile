# lrworld: benchmarks of LLMs in recommendation as a build graph.
# LRWorld stages, one rules file each: data -> (ground truth) -> questions -> prompts (-> audit) ->
# answers -> scores -> tables -> provenance and analyses. SRBench and LLaRA are tracks of their own,
# planned when config has their section.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/groundtruth.smk"
include: "rules/questions.smk"
include: "rules/audit.smk"
include: "rules/inference.smk"
include: "rules/scoring.smk"
include: "rules/provenance.smk"
include: "rules/analysis.smk"
include: "rules/srbench.smk"
include: "rules/llara.smk"


rule all:
    input:
        all_targets(),
        audit_targets(),
        analysis_targets(),
        srbench_targets(),
        llara_targets(),
    default_target: True
