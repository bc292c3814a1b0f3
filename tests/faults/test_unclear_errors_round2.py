"""Issue 27, "Unclear errors": each is one line naming the file or config key, through the real
interface (config validation, the graph, ingest), where it was a traceback, a hang or a wrong message."""

import subprocess
import sys
from pathlib import Path

import pytest

from lrworld.core import yamlfile
from lrworld.core.schema import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def _alias_bomb(path: Path) -> Path:
    # billion laughs: 9 levels of 9 aliases, 387,420,489 strings once written out
    lines = ['lol: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    lines.append("datasets: {bomb: *i}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_yaml_alias_bomb_is_refused_at_load_naming_the_file(tmp_path):
    bomb = _alias_bomb(tmp_path / "bomb.yaml")
    with pytest.raises(ConfigError, match=rf"^{bomb}: YAML aliases \(\*name\) expand to more than 200,000 values") as info:
        yamlfile.load_yaml(bomb)
    assert "\n" not in str(info.value)
    rec = tmp_path / "rec.yaml"
    rec.write_text("a: &a [1, *a]\n")  # an alias inside its own anchor: infinite once written out
    with pytest.raises(ConfigError, match=rf"^{rec}: YAML aliases"):
        yamlfile.load_yaml(rec)
    few = tmp_path / "few.yaml"
    few.write_text("base: &b {per_measure: 10}\nquestions: *b\n")  # ordinary aliases still load
    assert yamlfile.load_yaml(few) == {"base": {"per_measure": 10}, "questions": {"per_measure": 10}}


def test_the_graph_refuses_an_alias_bomb_configfile_in_one_line(tmp_path):
    # Snakemake loads --configfile itself first (fast: aliases stay shared objects); the project's
    # strict re-read in rules/common.smk refuses it before validation walks 387 million strings
    bomb = _alias_bomb(tmp_path / "bomb.yaml")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "-n", "--cores", "1", "--configfile", str(ROOT / "config.yaml"), str(bomb)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert f"{bomb}: YAML aliases (*name) expand to more than 200,000 values" in out
    assert "Traceback" not in out
