"""Config errors that would otherwise surface as a traceback, a hang or a wrong message deep in a
job: each is one line naming the file or config key, through the real interface (config validation,
the graph)."""

import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lrworld.config import assembly as lrw_config
from lrworld.core import yamlfile
from lrworld.core.schema import ConfigError

ROOT = Path(__file__).resolve().parents[2]
BASE = yaml.safe_load((ROOT / "config.yaml").read_text())


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


def _renamed(section: str, name: str) -> dict:
    cfg = copy.deepcopy(BASE)
    first = next(iter(cfg[section]))
    cfg[section][name] = cfg[section].pop(first)
    return cfg


@pytest.mark.parametrize("section", ["datasets", "models"])
@pytest.mark.parametrize("name, why", [
    ("a" * 64, r"ends in 'a' repeated 64 times, which Snakemake refuses as a periodic wildcard"),
    ("ml" + "ab" * 20, r"ends in 'ab' repeated 20 times, which Snakemake refuses as a periodic wildcard"),
    ("m" * 30 + "-" + "0123456789" * 4, r"71 characters; at most 64"),
    ("ml 100k;rm", r"letters, digits, '_', '\.', '-'; no '/', '\.\.' or spaces"),
])
def test_a_name_snakemake_cannot_take_is_refused_naming_the_key(section, name, why):
    with pytest.raises(ConfigError, match=rf"^config: {section}: '{re.escape(name)}' is not a valid name \({why}\)$"):
        lrw_config.validate(_renamed(section, name))


def test_names_just_inside_the_bounds_still_pass():
    lrw_config.validate(_renamed("datasets", "b" + "a" * 19))  # 19 repeats: Snakemake's detector needs 20
    lrw_config.validate(_renamed("models", "m" * 3 + "-" + "0123456789" * 6))  # 64 characters


def test_the_graph_refuses_a_periodic_dataset_name_before_planning(tmp_path):
    name = "a" * 64
    cfg = {"datasets": {name: BASE["datasets"][next(iter(BASE["datasets"]))]}}
    (tmp_path / "over.yaml").write_text(yaml.safe_dump(cfg))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "-n", "--cores", "1", "--configfile", str(ROOT / "config.yaml"), str(tmp_path / "over.yaml")],
                          capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"config: datasets: '{name}' is not a valid name (ends in 'a' repeated 64 times" in out
    assert "PeriodicWildcardError" not in out and "Traceback" not in out


def test_llara_n_candidates_past_the_bound_is_refused_naming_the_key():
    cfg = copy.deepcopy(BASE)
    cfg.setdefault("llara", {})["n_candidates"] = 1000000
    with pytest.raises(ConfigError, match=r"^config: llara\.n_candidates: 1000000 is greater than the maximum of 100$"):
        lrw_config.validate(cfg)
    cfg["llara"]["n_candidates"] = 100
    lrw_config.validate(cfg)


def test_llara_candidates_beyond_a_small_dataset_name_the_key_and_the_dataset():
    from lrworld.tracks.llara.candidates import draw_candidates
    from lrworld.tracks.llara.data import Example, LlaraSet

    ds = LlaraSet("tiny", {i: f"Film {i}" for i in range(30)}, [Example("q0", (1, 2), 3)])
    assert len(draw_candidates(ds, n=28)[0]["candidates"]) == 28  # 27 negatives: 30 items less 3 seen
    with pytest.raises(ValueError, match=r"^llara\.n_candidates: 29 candidates need 28 negatives, but q0 of tiny has "
                                         r"only 27 items with distinct titles left; lower llara\.n_candidates$"):
        draw_candidates(ds, n=29)
