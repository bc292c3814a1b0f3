"""How config.yaml and the user's --configfile files combine into the run's config.

Snakemake merges every --configfile over the Snakefile's `configfile: config.yaml` key by key.
For `datasets` and `models` that merge is wrong twice over: a user's config could never drop a
default dataset or model (a config for one dataset also built ML-100K), and a same-name dataset
was merged key by key (two kinds of `source` in one entry). After Snakemake's merge, `choose`
applies this rule instead:

- datasets: when any --configfile has `datasets`, those are the run's datasets. config.yaml's are
  not planned, and each entry is whole: a later file's entry of the same name replaces an earlier
  one's, never merged with it.
- models: when any --configfile has `models`, the models the --configfile files name are the ones
  that run. config.yaml's other entries stay in the config but disabled (so names elsewhere, such
  as analysis.model_pairs, still resolve), and a named entry changes config.yaml's entry of that
  name key by key, as Snakemake merges it (`llama3-8b-instruct: {enabled: true}` switches a
  catalogue entry on).

Every other key merges as Snakemake does. To keep config.yaml's datasets and models beside a file
of your own, pass it first: `--configfile config.yaml mine.yaml`.
"""

from __future__ import annotations

import copy
from pathlib import Path

from snakemake.utils import update_config

from lrworld.core.yamlfile import load_yaml


def choose(config: dict, cli_files, overrides: dict | None = None) -> dict:
    """Apply the rule above to `config` (Snakemake's merge of config.yaml and `cli_files`) in place.
    `overrides`: the `--config KEY=VALUE` settings, which still merge key by key."""
    given = [load_yaml(f) or {} for f in cli_files]
    overrides = dict(overrides or {})
    if any("datasets" in g for g in given):
        datasets: dict = {}
        for g in given:
            if not isinstance(g.get("datasets"), dict):
                if "datasets" in g:
                    datasets = g["datasets"]  # not a mapping: the schema check names it
                continue
            for name, entry in g["datasets"].items():
                datasets[name] = copy.deepcopy(entry)
        if isinstance(overrides.get("datasets"), dict) and isinstance(datasets, dict):
            update_config(datasets, overrides["datasets"])
        config["datasets"] = datasets
    if any(isinstance(g.get("models"), dict) for g in given) and isinstance(config.get("models"), dict):
        named = {n for g in [*given, overrides] if isinstance(g.get("models"), dict) for n in g["models"]}
        for name, entry in config["models"].items():
            if name not in named and isinstance(entry, dict):
                entry["enabled"] = False
    return config


def load(directory: str | Path = ".", cli_files=(), overrides: dict | None = None) -> dict:
    """The config a `snakemake -d DIRECTORY --configfile CLI_FILES --config OVERRIDES` run sees
    (before validation): DIRECTORY/config.yaml, each file merged over it as Snakemake merges, the
    `--config` settings merged last (`parse_overrides`), then `choose`."""
    base = Path(directory) / "config.yaml"
    config = (load_yaml(base) or {}) if base.exists() else {}
    for f in cli_files:
        update_config(config, load_yaml(f) or {})
    if overrides:
        update_config(config, copy.deepcopy(overrides))
    return choose(config, cli_files, overrides)


def parse_overrides(entries) -> dict:
    """`--config KEY=VALUE ...` as Snakemake reads it (its own parser: YAML values)."""
    from snakemake.cli import parse_config

    bad = [e for e in entries or () if "=" not in e]
    if bad:
        raise ValueError(f"--config {bad[0]!r}: not KEY=VALUE (Snakemake's form, e.g. 'variants=[zero_shot]'; "
                         f"a config file goes to --configfile)")
    return parse_config(list(entries or ()))
