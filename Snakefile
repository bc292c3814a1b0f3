# lrworld: benchmarks of LLMs in recommendation as a build graph.
# Stages, one rules file each: data -> questions -> prompts -> responses -> scores -> tables.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/questions.smk"
include: "rules/inference.smk"
include: "rules/scoring.smk"
include: "rules/provenance.smk"
include: "rules/analysis.smk"


rule all:
    input:
        all_targets() + analysis_targets(),
    default_target: True
