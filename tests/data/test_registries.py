"""The config schema's dataset part comes from the format and join registries: a new format is one
registration, and each format accepts only its own keys and the metadata of its joins."""

import copy

import pytest
import yaml

from lrworld.config import assembly as config
from lrworld.config.assembly import validate
from lrworld.core.schema import ConfigError
from lrworld.data.formats import FORMATS, Format
from lrworld.data.joins import JOINS

BASE = yaml.safe_load(open("config.yaml"))


def with_dataset(ds: dict) -> dict:
    cfg = copy.deepcopy(BASE)
    cfg["datasets"] = {"d": {"domain": "movie", "source": {"path": "/data"}, "measures": ["attr_genre"], **ds}}
    return cfg


def msg(cfg) -> str:
    with pytest.raises(ConfigError) as exc:
        validate(cfg)
    assert "\n" not in str(exc.value)
    return str(exc.value)


def test_format_enum_is_the_registry():
    s = config.schema()
    assert s["properties"]["datasets"]["additionalProperties"]["properties"]["format"]["enum"] == FORMATS.names()
    assert {"amazon-2014", "amazon-2018", "netflix", "netflix-prize", "ml-latest"} <= set(FORMATS.names())


@pytest.fixture
def fresh_validators():
    """The schema and its validators are built once per process from the registries as they are then: a format
    registered later (as here) needs them built again, and the next test needs them as they were."""
    from lrworld.data import schema as data_schema

    caches = (config._schema, config._config_filler, config._entry_validator, data_schema._dataset_validator)
    for c in caches:
        c.cache_clear()
    yield
    for c in caches:
        c.cache_clear()


def test_a_registered_toy_format_is_accepted_with_its_own_keys(monkeypatch, fresh_validators):
    toy = Format("toy", lambda raw, cfg: None, lambda cfg: ["x.tsv"], lambda cfg: [],
                 {"delimiter": {"enum": ["tab", "comma"], "default": "tab"}}, "a toy")
    monkeypatch.setitem(FORMATS._entries, "toy", toy)
    cfg = with_dataset({"format": "toy"})
    validate(cfg)
    config.fill_defaults(cfg)
    assert cfg["datasets"]["d"]["delimiter"] == "tab"
    assert "datasets.d.delimiter: 'pipe' is not one of" in msg(with_dataset({"format": "toy", "delimiter": "pipe"}))


def test_a_key_of_another_format_is_named():
    m = msg(with_dataset({"format": "ml-latest", "parts": [1]}))
    assert m.startswith("config: datasets.d.parts: unknown key; allowed: [") and "'encoding'" in m


def test_metadata_of_a_join_for_another_format_is_rejected():
    m = msg(with_dataset({"format": "ml-latest", "metadata": {"imdb_details": "/x.json"}}))
    assert m.startswith("config: datasets.d.metadata.imdb_details: unknown key; allowed: [")
    validate(with_dataset({"format": "ml-100k", "metadata": {"imdb_details": "/x.json", "min_alignment": 0.2}}))


def test_min_alignment_names_joins_of_the_format():
    validate(with_dataset({"format": "netflix", "metadata": {"netflix_metadata": "/m.csv",
                                                             "min_alignment": {"netflix_metadata": 0.02}}}))
    assert "datasets.d.metadata.min_alignment" in msg(with_dataset(
        {"format": "netflix", "metadata": {"netflix_metadata": "/m.csv", "min_alignment": {"abo": 0.1}}}))


def test_every_join_names_formats_that_exist():
    for name, join in JOINS.items():
        assert set(join.formats) <= set(FORMATS.names()), name


def test_bad_encoding_and_missing_checksum_are_named():
    assert msg(with_dataset({"format": "ml-latest", "encoding": "latin-9x"})) == \
        "config: datasets.d.encoding: 'latin-9x' is not a known text encoding"
    m = msg(with_dataset({"format": "ml-latest", "source": {"url": "https://example.org/ml.zip"}}))
    assert m.startswith("config: datasets.d.source: https://example.org/ml.zip has no sha256 or md5")
    validate(with_dataset({"format": "ml-latest", "source": {"url": "https://example.org/ml.zip",
                                                             "md5": "6b51fb2759a8657d3bfcbfc42b592ada"}}))
