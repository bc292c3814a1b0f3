"""docs/extending.md's floors table and its counts are the import-linter contract's and grimp's
(the graph `lint-imports` checks), not typed figures: a new subpackage, floor or import fails here
until the page says so."""

import re
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs/extending.md").read_text()


def test_the_floors_table_is_the_layers_contract():
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    layers = [sorted(p.strip() for p in layer.split("|")) for layer in reversed(contract["layers"])]
    table = {int(floor): sorted(re.findall(r"`(\w+)`", pkgs))
             for floor, pkgs in re.findall(r"^\| (\d+) \| ([^|]+) \|", PAGE, re.M)}
    assert table == dict(enumerate(layers))


def test_the_counts_are_the_import_graphs():
    graph = grimp.build_graph("lrworld")
    imports = sum(len(graph.find_modules_directly_imported_by(m)) for m in graph.modules)
    m = re.search(r"(\d[\d,]*) modules, (\d[\d,]*) imports", PAGE)
    assert m, "docs/extending.md: no 'N modules, M imports' line"
    assert (int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))) == (len(graph.modules), imports)
