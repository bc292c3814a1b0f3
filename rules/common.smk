# Config validation, wildcard constraints, code inputs and the input functions every stage uses.
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, workflow.basedir)

from snakemake.utils import validate
from lrworld.core import config as lrw_config
from lrworld.data.ingest import METADATA_KEYS, required_files
from lrworld.prompts.render import template_path
from lrworld.prompts.variants import template_variant

try:
    lrw_config.check_files(workflow.configfiles)  # duplicated keys: Snakemake's loader keeps the last
    lrw_config.validate(config)
except lrw_config.ConfigError as exc:
    # One line naming the key, before any job is planned.
    raise WorkflowError(str(exc)) from None
# The schema check passed above; this fills the schema's defaults.
validate(config, str(lrw_config.SCHEMA_PATH), set_default=True)

DATASETS = config["datasets"]
MODELS = lrw_config.enabled_models(config)
VARIANTS = config["variants"]
MEASURES = sorted({m for ds in DATASETS.values() for m in ds["measures"]})
PKG = Path(workflow.basedir) / "lrworld"


def _alt(names):
    return "|".join(re.escape(n) for n in names)


wildcard_constraints:
    dataset=_alt(DATASETS),
    model=_alt(MODELS) if MODELS else "(?!)",
    measure=_alt(MEASURES),
    variant=_alt(VARIANTS),


def code(*parts):
    """The package modules a rule runs, declared as inputs: a code change re-runs the rule
    (a change in `script:` files alone is not enough for Snakemake to re-run)."""
    files = [PKG / "__init__.py", PKG / "core/__init__.py", PKG / "core/io.py"]
    for part in parts:
        p = PKG / part
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return [str(f) for f in dict.fromkeys(files)]


def raw_inputs(wildcards):
    ds = DATASETS[wildcards.dataset]
    if "path" in ds["source"]:
        return [str(Path(ds["source"]["path"]) / f) for f in required_files(ds["format"], ds)]
    return [f"results/raw/{wildcards.dataset}/manifest.json"]


def metadata_inputs(wildcards):
    meta = DATASETS[wildcards.dataset].get("metadata", {})
    return {k: v for k, v in meta.items() if k in METADATA_KEYS}


def template_for(wildcards):
    # kshot/noisy/shuffle<s> render with the zero_shot template (lrworld/prompts/variants.py)
    return str(template_path(DATASETS[wildcards.dataset]["domain"], wildcards.measure,
                             template_variant(wildcards.variant)))


def gpus_for(model):
    """GPUs a model's answer job requests: `gpus:` if set, else one for a local model that needs
    more than 4 GB (small models such as SmolLM2 answer on CPU)."""
    m = MODELS[model]
    return m.get("gpus", 1 if m["backend"] == "hf" and m.get("device", "") != "cpu" and m.get("gpu_mem_gb", 0) > 4 else 0)


def model_resources(wildcards):
    return gpus_for(wildcards.model)


def prompt_files(dataset):
    return expand("results/prompts/{dataset}/{measure}/{variant}.jsonl", dataset=dataset,
                  measure=DATASETS[dataset]["measures"], variant=VARIANTS)


def model_gpu_model(wildcards):
    """The GPU type a model asks for (`gpu_model:`), only when it uses a GPU; SLURM: --gpus=<type>:<n>."""
    return MODELS[wildcards.model].get("gpu_model", "") if model_resources(wildcards) else ""


def slurm_partition(gpus):
    """SLURM partition from the environment: $LRWORLD_SLURM_GPU_PARTITION for GPU jobs, else
    $LRWORLD_SLURM_PARTITION; "" leaves it to the cluster's default. Local runs ignore it."""
    cpu = os.environ.get("LRWORLD_SLURM_PARTITION", "")
    return os.environ.get("LRWORLD_SLURM_GPU_PARTITION", cpu) if gpus else cpu


def score_files(dataset):
    return expand("results/scores/{dataset}/{model}/{measure}/{variant}.json", dataset=dataset,
                  model=MODELS, measure=DATASETS[dataset]["measures"], variant=VARIANTS)


def all_targets():
    return expand("results/tables/{dataset}.{ext}", dataset=DATASETS, ext=["csv", "md"]) + expand(
        "results/provenance/{dataset}/table.json", dataset=DATASETS)
