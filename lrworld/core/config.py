"""Load and validate config.yaml against the JSON schema, with one-line errors naming the key.

jsonschema's own messages print the whole offending instance; a researcher with a typo needs the
key path and what is allowed, so errors are reformatted here. Checks the schema cannot express
(measure ids per domain) follow the schema check.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from jsonschema import Draft202012Validator

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
        return f"{where}: give exactly one of path, url+sha256, or wheel"
    return f"{where}: {err.message}"


def schema() -> dict:
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def validate(config: dict) -> None:
    """Raise ConfigError naming the first bad key; config is left unchanged."""
    validator = Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    if errors:
        _raise(_message(errors[0]))
    for name, ds in config["datasets"].items():
        domain = ds["domain"]
        known = measures.measure_ids(domain)
        for i, mid in enumerate(ds["measures"]):
            if mid not in known:
                _raise(f"datasets.{name}.measures[{i}]: unknown measure {mid!r} for domain {domain!r}; known: {known}")
            if not measures.get(domain, mid).built:
                _raise(f"datasets.{name}.measures[{i}]: measure {mid!r} has no question builder in this version")


def _raise(msg: str):
    raise ConfigError(f"config: {msg}")


def model_defaults(entry: dict) -> dict:
    """A copy of a model entry with the schema's defaults filled in, as Snakemake's
    validate(set_default=True) fills them for the pipeline; for backends built outside the graph
    (tests, benchmarks), so that defaults live only in the schema."""
    import copy

    from jsonschema import validators

    base = Draft202012Validator
    plain_properties = base.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        for key, sub in properties.items():
            if "default" in sub and isinstance(instance, dict):
                instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from plain_properties(validator, properties, instance, schema)

    filled = copy.deepcopy(entry)
    entry_schema = schema()["properties"]["models"]["additionalProperties"]
    validators.extend(base, {"properties": set_defaults})(entry_schema).validate(filled)
    return filled


def enabled_models(config: dict) -> dict:
    return {k: v for k, v in config["models"].items() if v.get("enabled", True)}


def load(path: str | Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    validate(cfg)
    return cfg
