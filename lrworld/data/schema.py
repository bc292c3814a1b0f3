"""The dataset part of the config schema, from the format and metadata-join registries, and one
dataset block's defaults for loaders called outside the graph (tests, notebooks): they see what
the graph sees. `lrworld.config.assembly` puts this part into the whole config's schema."""

from __future__ import annotations

import copy
import functools

import yaml
from jsonschema import Draft202012Validator

from lrworld.core.schema import SCHEMA_PATH, fail, filling_defaults, one_line
from lrworld.questions import measures


def add_dataset_registries(s: dict) -> None:
    """The `format` enum, and per format (an `if format: X` branch) its own keys and the `metadata:`
    keys and options of the joins that apply to it. Unknown keys are rejected per format."""
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


def add_domains(s: dict) -> None:
    s["properties"]["datasets"]["additionalProperties"]["properties"]["domain"] = {"enum": list(measures.DOMAINS)}


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


@functools.lru_cache(maxsize=1)
def _dataset_validator():
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        s = yaml.safe_load(fh)
    add_dataset_registries(s)
    add_domains(s)
    ds = dict(s["properties"]["datasets"]["additionalProperties"], required=["format"])
    return filling_defaults(Draft202012Validator)({"definitions": s["definitions"], **ds})


def dataset_defaults(name: str, ds: dict) -> dict:
    """One dataset block (domain, source and measures may be absent) checked and with its format's
    defaults filled in, as a new dict."""
    out = copy.deepcopy(ds)
    errors = sorted(_dataset_validator().iter_errors(out), key=lambda e: len(list(e.absolute_path)))
    if errors:
        err = errors[0]
        err.path.extendleft(["datasets", name][::-1])
        fail(one_line(err))
    return out
