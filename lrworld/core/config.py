"""Load and validate config.yaml against the JSON schema, with one-line errors naming the key.

jsonschema's own messages print the whole offending instance; a researcher with a typo needs the
key path and what is allowed, so errors are reformatted here. Checks the schema cannot express
(measure ids per domain) follow the schema check.
"""

from __future__ import annotations

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
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def validate(config: dict) -> None:
    """Raise ConfigError naming the first bad key; config is left unchanged."""
    validator = _Validator(schema())
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
    from lrworld.core import config_checks

    try:
        config_checks.check(config)
    except config_checks.CheckError as exc:
        _raise(str(exc))


def _raise(msg: str):
    raise ConfigError(f"config: {msg}")


def enabled_models(config: dict) -> dict:
    return {k: v for k, v in config["models"].items() if v.get("enabled", True)}


def load(path: str | Path) -> dict:
    cfg = load_yaml(path)
    validate(cfg)
    return cfg
