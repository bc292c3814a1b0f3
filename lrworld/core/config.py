"""Load and validate config.yaml against the JSON schema, with one-line errors naming the key.

jsonschema's own messages print the whole offending instance; a researcher with a typo needs the
key path and what is allowed, so errors are reformatted here. Checks the schema cannot express
(measure ids per domain) follow the schema check.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator, validators

from lrworld.models.registry import COMMON_KEYS, backends
from lrworld.questions import measures

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema" / "config.schema.yaml"


class ConfigError(ValueError):
    pass


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _message(err) -> str:
    where = _key(err.absolute_path)
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        if any("key" in k.lower() for k in extra):
            # An API key in config would end up in provenance and logs.
            return f"{_key(list(err.absolute_path) + [extra[0]])}: API keys must not be in config; set them in the environment (api_key_env)"
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        allowed = sorted(err.schema.get("properties", {}))
        return f"{_key(list(err.absolute_path) + [extra[0]]) if extra else where}: unknown key; allowed: {allowed}"
    if err.validator == "pattern" and err.schema.get("pattern", "").startswith("^(?!.*"):
        return f"{where}: {err.instance!r} is not a valid name (letters, digits, '_', '.', '-'; no '/', '..' or spaces)"
    if err.validator == "not" and "description" in err.schema:  # an impossible combination of keys
        return f"{where}: {err.schema['description']}"
    if err.validator == "enum":
        return f"{where}: {err.instance!r} is not one of {err.validator_value}"
    if err.validator == "oneOf" and where.endswith("source"):
        return f"{where}: give exactly one of path, url, or wheel"
    if err.validator == "dependentRequired":
        key = next(k for k, need in err.validator_value.items() if k in err.instance and
                   any(n not in err.instance for n in need))
        return f"{where}: {key} needs {[n for n in err.validator_value[key] if n not in err.instance]} too"
    return f"{where}: {err.message}"


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise ConfigError(f"{self.name}:{key_node.start_mark.line + 1}: key {key!r} is given twice "
                                  f"(first on line {seen[key]}); remove one")
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


def load_yaml(path: str | Path):
    """A YAML file with duplicated keys refused, and syntax errors as one line naming file and line."""
    with open(path, encoding="utf-8") as fh:
        loader = _StrictLoader(fh)
        loader.name = str(path)
        try:
            return loader.get_single_data()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark else str(path)
            raise ConfigError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
        finally:
            loader.dispose()


def check_files(paths) -> None:
    """The config files Snakemake merged (config.yaml and each --configfile), read strictly."""
    for p in paths:
        load_yaml(p)


# JSON Schema counts 20.0 as an integer; a seed or a count written 20.0 is a typo to report.
def _strict_integer(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = validators.extend(
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer))


def schema() -> dict:
    """The config schema: the YAML file, with what the registries declare filled in."""
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        s = yaml.safe_load(fh)
    _add_backends(s)
    _add_dataset_registries(s)
    _add_measures_and_variants(s)
    return s


def _add_measures_and_variants(s: dict) -> None:
    from lrworld.prompts.variants import name_pattern

    s["properties"]["variants"]["items"]["pattern"] = name_pattern()
    s["properties"]["datasets"]["additionalProperties"]["properties"]["domain"] = {"enum": list(measures.DOMAINS)}


def _add_backends(s: dict) -> None:
    """A model entry names a registered backend; its other keys are checked against that
    backend's own fragment afterwards (`_check_models`), so each error names the backend."""
    entry = s["properties"]["models"]["additionalProperties"]
    entry["properties"] = {"backend": {"enum": backends().names()}}


def backend_schema(backend: str) -> dict:
    return {"type": "object", "additionalProperties": False,
            "properties": {**COMMON_KEYS, **backends().get(backend).schema}}


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
            _raise(f"{_key(path)}: {problem}")
        sub = backend_schema(model["backend"])
        sub["properties"].update(extra)
        errors = sorted(_Validator(sub).iter_errors(model), key=lambda e: list(map(str, e.absolute_path)))
        if errors:
            err = errors[0]
            if err.validator == "additionalProperties" and not err.absolute_path:
                extra = sorted(set(err.instance) - set(sub["properties"]))
                if not any("key" in k.lower() for k in extra):
                    _raise(f"{_key(path + [extra[0]])}: unknown key for backend {model['backend']!r}; "
                           f"allowed: {sorted(sub['properties'])}")
            err.path.extendleft(path[::-1])
            _raise(_message(err))


def _add_dataset_registries(s: dict) -> None:
    """The dataset part of the schema from the format and metadata-join registries: the `format`
    enum, and per format (an `if format: X` branch) its own keys and the `metadata:` keys and
    options of the joins that apply to it. Unknown keys are rejected per format."""
    from lrworld.data import joins
    from lrworld.data.formats import FORMATS

    ds = s["properties"]["datasets"]["additionalProperties"]
    common = ds["properties"]
    common["format"] = {"enum": FORMATS.names()}
    ds["allOf"] = [{
        "if": {"properties": {"format": {"const": name}}, "required": ["format"]},
        "then": {"properties": {**{k: True for k in common}, **fmt.options, "metadata": _metadata_schema(name, joins)},
                 "additionalProperties": False},
    } for name, fmt in FORMATS.items()]


def _metadata_schema(fmt: str, joins) -> dict:
    applicable = joins.for_format(fmt)
    props: dict = {}
    for j in applicable:
        for k in j.keys + j.optional_keys:
            props[k] = (j.key_schema or {}).get(k, {"type": "string"})
        for k, v in (j.options or {}).items():
            if props.setdefault(k, v) != v:
                raise ValueError(f"metadata option {k!r} is declared differently by two joins ({j.name})")
    floor = {"type": "number", "minimum": 0, "maximum": 1}
    props["min_alignment"] = {"default": 0.5, "oneOf": [floor, {
        "type": "object", "additionalProperties": False,
        "properties": {"default": dict(floor, default=0.5), **{j.name: floor for j in applicable}}}]}
    # metadata files fetched like the dataset's own: join keys are then names inside that download
    props["source"] = {"$ref": "#/definitions/source"}
    return {"type": "object", "additionalProperties": False, "properties": props,
            "dependentRequired": {k: [o for o in j.keys if o != k] for j in applicable for k in j.keys
                                  if len(j.keys) > 1}}


def _with_defaults(validator_class):
    """A validator that fills `default:` values in as it validates (jsonschema FAQ recipe, as
    snakemake.utils.validate does; defaults inside `if/then` branches are filled too)."""
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for prop, sub in properties.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(prop, copy.deepcopy(sub["default"]))
        yield from validate_properties(validator, properties, instance, schema)

    return validators.extend(validator_class, {"properties": set_defaults})


@functools.lru_cache(maxsize=1)
def _dataset_validator():
    s = schema()
    ds = dict(s["properties"]["datasets"]["additionalProperties"], required=["format"])
    return _with_defaults(Draft202012Validator)({"definitions": s["definitions"], **ds})


@functools.lru_cache(maxsize=None)
def _entry_validator(where: tuple[str, ...]):
    s = schema()
    sub = s
    for key in where:
        sub = sub["properties"][key]
    return _with_defaults(Draft202012Validator)({"definitions": s["definitions"], **sub["additionalProperties"]})


@functools.lru_cache(maxsize=1)
def _config_filler():
    """The whole config's default-filling validator, built once (the schema is read and its
    registries discovered once per process)."""
    return _with_defaults(Draft202012Validator)(schema())


def entry_defaults(where: tuple[str, ...], entry: dict) -> dict:
    """A copy of one entry of a map in config (e.g. where=("llara", "datasets")) with the schema's
    defaults filled in, for code called outside the graph: the defaults stay in the schema. The
    validator is built once per map (input functions call this once per job)."""
    out = copy.deepcopy(entry)
    for _ in _entry_validator(tuple(where)).iter_errors(out):
        pass
    return out


def dataset_defaults(name: str, ds: dict) -> dict:
    """One dataset block (domain, source and measures may be absent) checked and with its format's
    defaults filled in, as a new dict: loaders called outside the graph see what the graph sees."""
    out = copy.deepcopy(ds)
    errors = sorted(_dataset_validator().iter_errors(out), key=lambda e: len(list(e.absolute_path)))
    if errors:
        err = errors[0]
        err.path.extendleft(["datasets", name][::-1])
        _raise(_message(err))
    return out


def validate(config: dict) -> None:
    """Raise ConfigError naming the first bad key; config is left unchanged."""
    s = schema()
    validator = _Validator(s)
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    if errors:
        _raise(_message(errors[0]))
    _check_kshot_variants(config, s["properties"]["analysis"]["properties"]["kshot"]["properties"]["k"])
    _check_models(config)
    from lrworld.data import options

    for name, ds in config["datasets"].items():
        problem = options.problem(name, ds)
        if problem:
            _raise(problem)
        domain = ds["domain"]
        known = measures.measure_ids(domain)
        for i, mid in enumerate(ds["measures"]):
            if mid not in known:
                _raise(f"datasets.{name}.measures[{i}]: unknown measure {mid!r} for domain {domain!r}; known: {known}")
    from lrworld.core import config_checks

    try:
        config_checks.check(config)
    except config_checks.CheckError as exc:
        _raise(str(exc))


def _check_kshot_variants(config: dict, k_schema: dict) -> None:
    """`kshot<k>` takes k from its name: the same bounds as analysis.kshot.k (kshot0 would build
    "Here are 0 solved examples" prompts)."""
    from lrworld.prompts.variants import kind, kshot_k

    lo, hi = k_schema["minimum"], k_schema["maximum"]
    for i, v in enumerate(config.get("variants", [])):
        if kind(v) == "kshot" and v != "kshot" and not lo <= kshot_k(v, None) <= hi:
            _raise(f"variants.{i}: {v!r}: k = {kshot_k(v, None)} solved examples; k must be {lo}..{hi}, "
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


def _raise(msg: str):
    raise ConfigError(f"config: {msg}")


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
