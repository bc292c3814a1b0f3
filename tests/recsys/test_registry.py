"""The recommender registry: built-in entries resolve to their factories, a module declaring itself
is read without being imported, and a bad declaration or reference fails in one line."""

import sys

import pytest

from lrworld.core.registry import declarations, resolve
from lrworld.recsys.registry import recommenders


def test_declarations_are_read_without_importing_the_module(tmp_path, monkeypatch):
    pkg = tmp_path / "plugpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    # importing it would fail: a declaration is read by ast, so the import never runs
    (pkg / "heavy.py").write_text("import a_module_that_does_not_exist\n\n"
                                  "RECOMMENDER = {'name': 'heavy', 'make': 'Heavy', 'schema': {'k': {'type': 'integer'}}}\n")
    (pkg / "plain.py").write_text("X = 1\n")
    (pkg / "_private.py").write_text("RECOMMENDER = {'name': 'hidden', 'make': 'H'}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = declarations("plugpkg", "RECOMMENDER")
    assert found == {"plugpkg.heavy": {"name": "heavy", "make": "plugpkg.heavy:Heavy",
                                       "schema": {"k": {"type": "integer"}}}}
    assert "plugpkg.heavy" not in sys.modules


def test_a_declaration_that_is_not_a_literal_is_refused_naming_the_file(tmp_path, monkeypatch):
    pkg = tmp_path / "badpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mine.py").write_text("NAME = 'x'\nRECOMMENDER = {'name': NAME, 'make': 'M'}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=r"mine\.py: RECOMMENDER must be a literal"):
        declarations("badpkg", "RECOMMENDER")


def test_resolve_names_what_is_missing():
    assert resolve("lrworld.recsys.registry:recommenders") is recommenders
    with pytest.raises(ValueError, match="not a 'module:attr' reference"):
        resolve("lrworld.recsys.registry")
    with pytest.raises(ValueError, match="has no 'nothing'"):
        resolve("lrworld.recsys.registry:nothing")


def test_every_recommender_entry_resolves_and_has_a_settings_schema_the_config_schema_knows():
    from lrworld.core.schema import SCHEMA_PATH
    from lrworld.core.yamlfile import load_yaml

    definitions = load_yaml(SCHEMA_PATH)["definitions"]
    reg = recommenders()
    assert len(reg) > 0
    for name, entry in reg.items():
        assert entry.name == name and callable(resolve(entry.make)), name
        settings = entry.settings_schema()
        if "$ref" in settings:
            assert settings["$ref"].removeprefix("#/definitions/") in definitions, name
        else:
            assert settings["additionalProperties"] is False and settings["type"] == "object", name


def test_an_entry_builds_through_its_reference_with_its_settings():
    reg = recommenders()
    rec = reg.get("lightgcn").build({"max_epochs": 1, "patience": 1, "lr": 0.01, "batch_size": 8, "dim": 4,
                                     "n_layers": 1, "reg": 0.0})
    assert type(rec).__name__ == "CFRecommender" and rec.model_name == "lightgcn" and rec.hp == {"dim": 4, "n_layers": 1}
    assert reg.get("sasrec").settings_schema() == {"$ref": "#/definitions/sr_sasrec"}
