"""The config: its schema assembled from the registries (backends, formats and joins, measures,
variants), validated with one-line errors naming the key, and its defaults filled in. Checks the
schema cannot express (measure ids per domain, `lrworld.config.checks`) follow the schema check.

This package sits above every registry it reads; the pieces below it (the error, the messages,
the strict YAML loader) are in `lrworld.core.schema` and `lrworld.core.yamlfile`.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator

from lrworld.config import checks as config_checks
from lrworld.core.schema import SCHEMA_PATH, StrictValidator, fail, filling_defaults, key_path, one_line
from lrworld.core.yamlfile import load_yaml
from lrworld.data import options, schema as dataset_schema
from lrworld.models.registry import COMMON_KEYS, backends, configurable
from lrworld.paper import figures as paper
from lrworld.questions import measures
from lrworld.recsys.registry import recommenders


def schema() -> dict:
    """The config schema: the YAML file, with what the registries declare filled in (a fresh
    copy: callers may change theirs)."""
    return copy.deepcopy(_schema())


@functools.lru_cache(maxsize=1)
def _schema() -> dict:
    # read once per process: a plan validates the config and fills its defaults from it
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(fh)  # libyaml's safe loader where built
        try:
            s = loader.get_single_data()
        finally:
            loader.dispose()
    _add_backends(s)
    dataset_schema.add_dataset_registries(s)
    _add_measures_and_variants(s)
    _add_recommenders(s)
    return s


def _add_measures_and_variants(s: dict) -> None:
    from lrworld.prompts.variants import name_pattern

    s["properties"]["variants"]["items"]["pattern"] = name_pattern()
    extra = s["properties"]["datasets"]["additionalProperties"]["properties"]["extra_variants"]
    extra["additionalProperties"]["items"]["pattern"] = name_pattern()
    dataset_schema.add_domains(s)


def _add_recommenders(s: dict) -> None:
    """`srbench.baselines` takes each registered recommender, with its own settings' schema."""
    s["properties"]["srbench"]["properties"]["baselines"]["properties"] = {
        name: entry.settings_schema() for name, entry in recommenders().items()}


def _add_backends(s: dict) -> None:
    """A model entry names a registered backend; its other keys are checked against that
    backend's own fragment afterwards (`_check_models`), so each error names the backend."""
    entry = s["properties"]["models"]["additionalProperties"]
    entry["properties"] = {"backend": {"enum": configurable()}}


# the paper's row a model is compared with (lrworld/paper/: RANDOM and its Table 15's names)
PAPER_NAME = {"paper_name": {"enum": paper.model_names()}}


# which jobs a model has, whatever its backend: `measures`, {dataset: [measure, ...]} it answers (a
# dataset it does not name, none; absent, every planned measure); `experiments: paper`, the runs
# the paper made of its `paper_name` row, per measure and variant (lrworld/config/experiments.py)
RUN_KEYS = {"measures": {"type": "object", "propertyNames": {"$ref": "#/definitions/name"},
                         "additionalProperties": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
            "experiments": {"enum": ["paper"]}}


def backend_schema(backend: str) -> dict:
    return {"type": "object", "additionalProperties": False,
            "properties": {**COMMON_KEYS, **PAPER_NAME, **RUN_KEYS, **backends().get(backend).schema},
            "definitions": _schema()["definitions"]}


# Keys of the captioner entry that are not its backend's (the instruction it is given).
CAPTIONER_KEYS = {
    "prompt_file": {"type": "string"},
    # image URLs from the data are untrusted (lrworld/captions/fetch.py): a body over this many
    # bytes is not downloaded, and one download (redirects included) may take at most image_timeout_s
    "max_image_bytes": {"type": "integer", "minimum": 1, "default": 20000000},
    "image_timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 30},
}


def _entries(config: dict):
    """(key path, backend entry) of every model entry, the captioner's included."""
    for name, model in config["models"].items():
        yield ["models", name], model, {}
    if "captioner" in config:
        yield ["captioner"], config["captioner"], CAPTIONER_KEYS


def _check_models(config: dict) -> None:
    for path, model, extra in _entries(config):
        problem = backends().get(model["backend"]).check(model)
        if problem:
            fail(f"{key_path(path)}: {problem}")
        sub = backend_schema(model["backend"])
        sub["properties"].update(extra)
        errors = sorted(StrictValidator(sub).iter_errors(model), key=lambda e: list(map(str, e.absolute_path)))
        if errors:
            err = errors[0]
            if err.validator == "additionalProperties" and not err.absolute_path:
                extra = sorted(set(err.instance) - set(sub["properties"]))
                if not any("key" in k.lower() for k in extra):
                    fail(f"{key_path(path + [extra[0]])}: unknown key for backend {model['backend']!r}; "
                           f"allowed: {sorted(sub['properties'])}")
            err.path.extendleft(path[::-1])
            fail(one_line(err))


@functools.lru_cache(maxsize=None)
def _entry_validator(where: tuple[str, ...]):
    s = schema()
    sub = s
    for key in where:
        sub = sub["properties"][key]
    return filling_defaults(Draft202012Validator)({"definitions": s["definitions"], **sub["additionalProperties"]})


@functools.lru_cache(maxsize=1)
def _config_filler():
    """The whole config's default-filling validator, built once (the schema is read and its
    registries discovered once per process)."""
    return filling_defaults(Draft202012Validator)(schema())


def entry_defaults(where: tuple[str, ...], entry: dict) -> dict:
    """A copy of one entry of a map in config (e.g. where=("llara", "datasets")) with the schema's
    defaults filled in, for code called outside the graph: the defaults stay in the schema. The
    validator is built once per map (input functions call this once per job)."""
    out = copy.deepcopy(entry)
    for _ in _entry_validator(tuple(where)).iter_errors(out):
        pass
    return out


def validate(config: dict) -> None:
    """Raise ConfigError naming the first bad key; config is left unchanged."""
    s = schema()
    validator = StrictValidator(s)
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    if errors:
        fail(one_line(errors[0]))
    _check_kshot_variants(config, s["properties"]["analysis"]["properties"]["kshot"]["properties"]["k"])
    _check_models(config)
    for name, ds in config["datasets"].items():
        problem = options.problem(name, ds)
        if problem:
            fail(problem)
        domain = ds["domain"]
        known = measures.measure_ids(domain)
        for i, mid in enumerate(ds["measures"]):
            if mid not in known:
                fail(f"datasets.{name}.measures[{i}]: unknown measure {mid!r} for domain {domain!r}; known: {known}")
        for mid in ds.get("extra_variants") or {}:
            if mid not in ds["measures"]:
                fail(f"datasets.{name}.extra_variants.{mid}: not a measure of datasets.{name} "
                     f"(its measures: {', '.join(ds['measures'])})")
    try:
        config_checks.check(config)
    except config_checks.CheckError as exc:
        fail(str(exc))


def _check_kshot_variants(config: dict, k_schema: dict) -> None:
    """`kshot<k>` takes k from its name: the same bounds as analysis.kshot.k (kshot0 would build
    "Here are 0 solved examples" prompts)."""
    from lrworld.prompts.variants import kind, kshot_k

    lo, hi = k_schema["minimum"], k_schema["maximum"]
    named = [(f"variants.{i}", v) for i, v in enumerate(config.get("variants", []))]
    named += [(f"datasets.{d}.extra_variants.{m}.{i}", v) for d, ds in config["datasets"].items()
              for m, vs in (ds.get("extra_variants") or {}).items() for i, v in enumerate(vs)]
    for where, v in named:
        if kind(v) == "kshot" and v != "kshot" and not lo <= kshot_k(v, None) <= hi:
            fail(f"{where}: {v!r}: k = {kshot_k(v, None)} solved examples; k must be {lo}..{hi}, "
                 f"as analysis.kshot.k")


def with_defaults(config: dict) -> dict:
    """A deep copy of ``config`` with the schema's defaults filled in, the way the workflow's
    ``validate(config, schema, set_default=True)`` fills them (the jsonschema FAQ recipe), for
    code run outside Snakemake (tests, notebooks): defaults stay in the schema alone. Nothing is
    validated here; a default is filled wherever its object is present."""
    filled = copy.deepcopy(config)
    for _ in _config_filler().iter_errors(filled):
        pass
    return filled


def fill_defaults(config: dict) -> dict:
    """Fill every default the schema and the backends declare, in place (after `validate`)."""
    _config_filler().validate(config)
    reg = backends()
    for name, model in config["models"].items():
        config["models"][name] = reg.get(model["backend"]).with_defaults(model)
    captioner = reg.get(config["captioner"]["backend"]).with_defaults(config["captioner"])
    config["captioner"] = {**{k: s["default"] for k, s in CAPTIONER_KEYS.items() if "default" in s}, **captioner}
    return config


def enabled_models(config: dict) -> dict:
    return {k: v for k, v in config["models"].items() if v.get("enabled", True)}


def load(path: str | Path) -> dict:
    cfg = load_yaml(path)
    validate(cfg)
    return cfg
