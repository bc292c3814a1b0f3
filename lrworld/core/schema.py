"""JSON Schema helpers every layer may use: the config error, one-line messages naming the key,
integers that refuse 20.0, and a validator that fills `default:` values in.

jsonschema's own messages print the whole offending instance; a researcher with a typo needs the
key path and what is allowed, so errors are reformatted here. The schema itself is assembled from
the registries above this floor (`lrworld.config.assembly`).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

from jsonschema import Draft202012Validator, validators

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema" / "config.schema.yaml"


class ConfigError(ValueError):
    pass


def key_path(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _name_problem(name) -> str:
    if isinstance(name, str) and len(name) > 64:
        return f"{len(name)} characters; at most 64"
    periodic = re.search(r"(.+?)\1{19,}$", name) if isinstance(name, str) else None
    if periodic:
        return (f"ends in {periodic.group(1)!r} repeated {len(periodic.group(0)) // len(periodic.group(1))} times, "
                f"which Snakemake refuses as a periodic wildcard")
    return "letters, digits, '_', '.', '-'; no '/', '..' or spaces"


def one_line(err) -> str:
    where = key_path(err.absolute_path)
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        if any("key" in k.lower() for k in extra):
            # An API key in config would end up in provenance and logs.
            return f"{key_path(list(err.absolute_path) + [extra[0]])}: API keys must not be in config; set them in the environment (api_key_env)"
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        allowed = sorted(err.schema.get("properties", {}))
        return f"{key_path(list(err.absolute_path) + [extra[0]]) if extra else where}: unknown key; allowed: {allowed}"
    if err.validator == "pattern" and err.schema.get("pattern", "").startswith("^(?!.*"):
        return f"{where}: {err.instance!r} is not a valid name ({_name_problem(err.instance)})"
    if err.validator == "not" and "description" in err.schema:  # an impossible combination of keys
        return f"{where}: {err.schema['description']}"
    if err.validator == "enum":
        return f"{where}: {err.instance!r} is not one of {err.validator_value}"
    if err.validator == "oneOf" and where.endswith("source"):
        return f"{where}: give exactly one of path, url, wheel, or benchmark"
    if err.validator == "oneOf" and where.endswith("source.benchmark"):
        return (f"{where}: a release folder, or {{url: <http(s) URL of its .tar.gz/.zip>, sha256: <the archive's "
                f"sha256>}} (both keys; {err.instance!r} given)")
    if err.validator == "dependentRequired":
        key = next(k for k, need in err.validator_value.items() if k in err.instance and
                   any(n not in err.instance for n in need))
        return f"{where}: {key} needs {[n for n in err.validator_value[key] if n not in err.instance]} too"
    return f"{where}: {err.message}"


def fail(msg: str):
    raise ConfigError(f"config: {msg}")


# JSON Schema counts 20.0 as an integer; a seed or a count written 20.0 is a typo to report.
def _strict_integer(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


StrictValidator = validators.extend(
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer))


def filling_defaults(validator_class):
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
