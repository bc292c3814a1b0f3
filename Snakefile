# lrworld: benchmarks of LLMs in recommendation as a build graph.
# LRWorld stages, one rules file each: data -> (ground truth) -> questions (captions for the
# image measure) -> prompts (-> audit) -> answers -> scores -> tables -> provenance and
# analyses; every results table -> its docs snippet (docs/generated/). SRBench and LLaRA are
# tracks of their own, planned when config has their section;
# every model call of every track goes through the one `answer` rule (rules/inference.smk).
import os

from snakemake.utils import min_version

min_version("9.0")

# Torch's OpenMP threads spin while they wait for work: jobs that share cores (several at once on a
# workstation, a test suite) then burn each other's time (NeuMF on 2 busy cores: 5-8x slower). Every
# job inherits passive waiting unless the environment says otherwise (benchmarks/bench_neumf_threads.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


configfile: "config.yaml"


include: "rules/common.smk"
include: "rules/code.smk"
include: "rules/data.smk"
include: "rules/groundtruth.smk"
include: "rules/captions.smk"
include: "rules/questions.smk"
include: "rules/release.smk"
include: "rules/audit.smk"
include: "rules/inference.smk"
include: "rules/scoring.smk"
include: "rules/provenance.smk"
include: "rules/analysis.smk"
include: "rules/srbench.smk"
include: "rules/llara.smk"
include: "rules/site.smk"
include: "rules/docs.smk"


rule all:
    input:
        W.all_targets(),
        SITE,
    default_target: True
