"""`lrworld plan` / `status` take snakemake's `--config KEY=VALUE` form, and no option is taken for
an abbreviation of another (`--config` is not `--configfile`)."""

import json
from pathlib import Path

import pytest

from lrworld.cli import _parser, main
from lrworld.config.files import load, parse_overrides

ROOT = Path(__file__).resolve().parents[1]


def test_config_is_its_own_option_and_abbreviations_are_refused(capsys):
    args = _parser().parse_args(["plan", "--config", "variants=[zero_shot]", "seed=3"])
    assert args.config == ["variants=[zero_shot]", "seed=3"] and args.configfile == []
    args = _parser().parse_args(["status", "--configfile", "config/paper.yaml"])
    assert args.configfile == ["config/paper.yaml"] and args.config == []
    for argv in (["plan", "--configf", "x.yaml"], ["plan", "--paper"], ["status", "--js"], ["cache", "list", "--js"]):
        with pytest.raises(SystemExit):
            _parser().parse_args(argv)
    assert "unrecognized arguments: --configf" in capsys.readouterr().err


def test_overrides_merge_last_as_snakemake_reads_them():
    assert parse_overrides(["variants=[zero_shot, cot]", "seed=3"]) == {"variants": ["zero_shot", "cot"], "seed": 3}
    cfg = load(ROOT, [ROOT / "config/paper.yaml"], parse_overrides(["variants=[zero_shot]"]))
    assert cfg["variants"] == ["zero_shot"] and "amazon" in cfg["datasets"] and "ml100k" not in cfg["datasets"]
    with pytest.raises(ValueError, match="not KEY=VALUE"):
        parse_overrides(["config/paper.yaml"])


def test_plan_with_a_config_setting(capsys):
    assert main(["plan", "-d", str(ROOT), "--config", "variants=[zero_shot]", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["scale"]["variants"] == ["zero_shot"]
    assert res["scale"]["datasets"]["ml100k"]["prompts"] == res["scale"]["datasets"]["ml100k"]["questions"]
    assert main(["plan", "-d", str(ROOT), "--config", "config/paper.yaml"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not KEY=VALUE" in err
