"""Which cells each model answers: per dataset, its measures and each measure's variants. The one
definition the plan, the rules (which answer, score and record jobs exist), `lrworld plan` and the
checks at start read.

A model answers `variants` on each of its measures, plus the measure's `extra_variants` of the
dataset. A model entry with `experiments: paper` answers the runs the paper made of its
`paper_name` row on the dataset's paper table (lrworld.paper.experiments: the measures it ran, and
on each its ablation variants besides `variants`); `measures: {dataset: [...]}` narrows either. A
variant that sends an image (`visual`) is asked only of a model that reads images (and of the
chance row, which reads nothing): to any other it would be the zero-shot prompt again.
A dataset's prompt files are those of `variants` and `extra_variants` on every measure, and each
other variant some enabled model answers there.
"""

from __future__ import annotations

from lrworld.data.paper_dataset import paper_dataset
from lrworld.paper import experiments
from lrworld.paper import figures as paper
from lrworld.models.registry import capabilities
from lrworld.prompts.variants import measure_variants, needs_images

PAPER = "paper"


def kshot_series(config: dict) -> tuple[int, ...]:
    """analysis.kshot.series: the k of the paper's k-shot series (empty: plain `kshot`)."""
    return tuple(((config.get("analysis") or {}).get("kshot") or {}).get("series") or ())


def paper_runs(config: dict, model_cfg: dict, dataset: str) -> dict[str, list[str]] | None:
    """{measure: variants} the paper ran of the model's row on the dataset's paper table; None for
    a model without `experiments: paper`."""
    if model_cfg.get("experiments") != PAPER:
        return None
    return experiments.model_runs(paper.paper_name(model_cfg) or "", paper_dataset(config["datasets"][dataset]),
                                  kshot_series(config))


def model_measures(config: dict, model_cfg: dict, dataset: str) -> list[str]:
    """The measures of `dataset` the model answers, in the dataset's order."""
    runs = paper_runs(config, model_cfg, dataset)
    named = model_cfg.get("measures")
    return [m for m in config["datasets"][dataset]["measures"]
            if (runs is None or m in runs) and (named is None or m in named.get(dataset, ()))]


def model_variants(config: dict, model_cfg: dict, dataset: str, measure: str) -> list[str]:
    """The variants the model answers on one of its measures: `variants`, the dataset's
    `extra_variants`, then its paper runs' others."""
    asked = measure_variants(config.get("variants", ["zero_shot"]), config["datasets"][dataset], measure)
    runs = paper_runs(config, model_cfg, dataset) or {}
    can = capabilities(model_cfg)
    sees = can.reads_images or not can.reads_prompt
    return [v for v in [*asked, *(v for v in runs.get(measure, ()) if v not in asked)] if sees or not needs_images(v)]


def model_cells(config: dict, model_cfg: dict, dataset: str) -> list[tuple[str, str]]:
    """(measure, variant) of every cell the model answers on `dataset`."""
    return [(m, v) for m in model_measures(config, model_cfg, dataset)
            for v in model_variants(config, model_cfg, dataset, m)]


def dataset_variants(config: dict, models: dict, dataset: str, measure: str) -> list[str]:
    """The variants a measure's prompts are built in: `variants` and `extra_variants`, then any
    other a model of `models` answers there."""
    out = measure_variants(config.get("variants", ["zero_shot"]), config["datasets"][dataset], measure)
    for cfg in models.values():
        if measure in model_measures(config, cfg, dataset):
            out += [v for v in model_variants(config, cfg, dataset, measure) if v not in out]
    return out


def all_variants(config: dict, models: dict) -> list[str]:
    """Every variant some measure of some dataset is built in, `variants` first."""
    out = list(config.get("variants", ["zero_shot"]))
    for name, ds in (config.get("datasets") or {}).items():
        for m in ds.get("measures", ()):
            out += [v for v in dataset_variants(config, models, name, m) if v not in out]
    return out


def problem(config: dict, name: str, model_cfg: dict) -> str | None:
    """A one-line problem with a model's `experiments`, else None."""
    if model_cfg.get("experiments") != PAPER:
        return None
    row = paper.paper_name(model_cfg)
    if row not in experiments.runs():
        return (f"models.{name}.experiments: paper answers the runs the paper made of the model's paper row, and "
                f"{'it has no paper_name' if row is None else f'the paper made none of {row!r} (an expectation)'}; "
                f"set paper_name to a Table 15 row, or drop experiments")
    return None
