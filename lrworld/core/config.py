"""Load and validate config.yaml against the JSON schema, with one-line errors naming the key.

jsonschema's own messages print the whole offending instance; a researcher with a typo needs the
key path and what is allowed, so errors are reformatted here. Checks the schema cannot express
(measure ids per domain) follow the schema check.
"""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator, validators

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


def with_defaults(config: dict) -> dict:
    """A deep copy of ``config`` with the schema's defaults filled in, the way the workflow's
    ``validate(config, schema, set_default=True)`` fills them (the jsonschema FAQ recipe), for
    code run outside Snakemake (tests, notebooks): defaults stay in the schema alone. Nothing is
    validated here; a default is filled wherever its object is present."""
    base = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, sub in properties.items():
                if "default" in sub:
                    instance.setdefault(name, copy.deepcopy(sub["default"]))
        yield from base(validator, properties, instance, schema)

    filled = copy.deepcopy(config)
    for _ in validators.extend(Draft202012Validator, {"properties": set_defaults})(schema()).iter_errors(filled):
        pass
    return filled


def _raise(msg: str):
    raise ConfigError(f"config: {msg}")


def enabled_models(config: dict) -> dict:
    return {k: v for k, v in config["models"].items() if v.get("enabled", True)}


def load(path: str | Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    validate(cfg)
    return cfg
