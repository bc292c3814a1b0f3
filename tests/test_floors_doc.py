"""docs/extending.md's floors table is the import-linter contract's: a new subpackage or floor fails
here until the page says so (the page's module and import counts are a generated block,
tests/docsgen/test_blocks.py)."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs/extending.md").read_text()


def test_the_floors_table_is_the_layers_contract():
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    layers = [sorted(p.strip() for p in layer.split("|")) for layer in reversed(contract["layers"])]
    table = {int(floor): sorted(re.findall(r"`(\w+)`", pkgs))
             for floor, pkgs in re.findall(r"^\| (\d+) \| ([^|]+) \|", PAGE, re.M)}
    assert table == dict(enumerate(layers))

