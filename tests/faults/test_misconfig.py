"""Configurations that would run but silently do nothing or the wrong thing are rejected at start,
with one line naming the file or key (credentials and file keys included)."""

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lrworld.config import assembly as lrw_config
from lrworld.core import yamlfile
from lrworld.core.schema import ConfigError
from lrworld.config import files as config_files
from lrworld.config.checks import CheckError, check_template
from lrworld.prompts import render

ROOT = Path(__file__).resolve().parents[2]
BASE = yaml.safe_load((ROOT / "config.yaml").read_text())


def rejected(change, match):
    cfg = copy.deepcopy(BASE)
    change(cfg)
    with pytest.raises(ConfigError, match=match) as info:
        lrw_config.validate(cfg)
    assert "\n" not in str(info.value)
    return str(info.value)


def test_the_shipped_configs_pass():
    lrw_config.validate(copy.deepcopy(BASE))
    overlays = sorted((ROOT / "config").glob("*.yaml"))
    assert {"ablation.yaml", "llara.yaml", "llara_seeds.yaml", "srbench.yaml"} <= {o.name for o in overlays}
    after = {"paper_all_variants.yaml": "paper.yaml"}  # an overlay of another overlay (its header says)
    for overlay in overlays:
        # as the graph combines them: Snakemake's merge, then a --configfile's datasets and models choose
        first = [ROOT / "config" / after[overlay.name]] if overlay.name in after else []
        lrw_config.validate(config_files.load(ROOT, [*first, overlay]))


@pytest.fixture()
def templates(tmp_path, monkeypatch):
    root = tmp_path / "templates"
    shutil.copytree(render.TEMPLATE_ROOT, root)
    monkeypatch.setattr(render, "TEMPLATE_ROOT", root)
    return root / "movie" / "attr_genre" / "zero_shot.txt"


def test_a_template_without_candidates_is_rejected(templates):
    templates.write_text(templates.read_text().replace("${candidates}", ""))
    msg = rejected(lambda c: None, r"attr_genre/zero_shot\.txt: no \$\{candidates\}")
    assert str(templates) in msg


@pytest.mark.parametrize("typo, match", [("${candidate}", r"zero_shot\.txt:\d+: unknown placeholder \$\{candidate\}"),
                                         ("costs $5", r"zero_shot\.txt:\d+: invalid placeholder '\$5"),
                                         ("${ history }", r"zero_shot\.txt:\d+: invalid placeholder")])
def test_a_template_typo_names_the_file_line_and_placeholder(templates, typo, match):
    templates.write_text(templates.read_text() + f"\n{typo}\n")
    rejected(lambda c: None, match)


def test_dollars_escaped_and_inline_candidates_are_fine(tmp_path):
    t = tmp_path / "t.txt"
    t.write_text("Pick one of ${candidates_inline} for $$5.\n")
    check_template(t)
    t.write_text("Pick.\n")
    with pytest.raises(CheckError, match="no"):
        check_template(t)


def test_cot_with_a_choice_model_is_rejected():
    rejected(lambda c: c.update(variants=["zero_shot", "cot"]), r"variants: cot .*models\.smollm2-135m has mode: choice")
    # with the choice model off and a generate model on, cot is fine
    cfg = copy.deepcopy(BASE)
    cfg["variants"] = ["zero_shot", "cot"]
    cfg["models"]["smollm2-135m"]["enabled"] = False
    cfg["models"]["smollm2-135m-generate"]["enabled"] = True
    lrw_config.validate(cfg)


def test_every_model_disabled_is_rejected():
    def off(c):
        for m in c["models"].values():
            m["enabled"] = False
    rejected(off, r"^config: models: every model is disabled")


@pytest.mark.parametrize("change, match", [
    (lambda c: c["questions"].update(per_measure=20.0), r"questions\.per_measure: 20\.0 is not of type"),
    (lambda c: c.update(seed=-5), r"^config: seed: -5 is less than the minimum of 0"),
    (lambda c: c["models"]["random"].update(seed=1.0), r"models\.random\.seed: 1\.0 is not of type"),
])
def test_floats_for_integers_and_negative_seeds_are_rejected(change, match):
    rejected(change, match)


def test_an_mps_device_for_neumf_is_rejected_at_start():
    # NeuMF trains in float64 (lrworld/groundtruth/neumf.py), which MPS lacks: named before any job
    msg = rejected(lambda c: c.setdefault("groundtruth", {}).setdefault("neumf", {}).update(device="mps"),
                   r"groundtruth\.neumf\.device: 'mps' does not match")
    assert "cuda" in msg
    for ok in ("auto", "cpu", "cuda", "cuda:1"):
        cfg = copy.deepcopy(BASE)
        cfg.setdefault("groundtruth", {}).setdefault("neumf", {})["device"] = ok
        lrw_config.validate(cfg)


@pytest.mark.parametrize("url", ["http://user:sk-secret@127.0.0.1:8000/v1", "https://:sk-secret@api.example/v1",
                                 "https://host.example/v1?api-key=sk-secret"])
def test_credentials_in_a_base_url_are_rejected(url):
    msg = rejected(lambda c: c["models"]["gpt-4-0613"].update(base_url=url, enabled=True), r"models\.gpt-4-0613\.base_url: ")
    assert "sk-secret" not in msg and "environment" in msg
    msg = rejected(lambda c: c.update(captioner={"backend": "openai", "base_url": url}), r"captioner\.base_url: ")
    assert "sk-secret" not in msg


def test_cache_dir_that_is_a_file_is_rejected(tmp_path):
    f = tmp_path / "cache"
    f.write_text("not a folder")
    rejected(lambda c: c.update(cache_dir=str(f)), rf"cache_dir: {f} is a file, not a folder")
    rejected(lambda c: c.update(cache_dir=str(f / "sub")), rf"cache_dir: {f} is a file")


def test_a_gguf_file_typo_is_named_with_the_files_there():
    msg = rejected(lambda c: c["models"]["smollm2-135m"].update(gguf_file="SmolLM2-135M-Instruct.Q4_0.gguf"),
                   r"models\.smollm2-135m\.gguf_file: 'SmolLM2-135M-Instruct\.Q4_0\.gguf' not found in ")
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in msg


def test_a_duplicated_yaml_key_names_file_and_line(tmp_path):
    f = tmp_path / "over.yaml"
    f.write_text("seed: 1\nquestions:\n  per_measure: 10\n  per_measure: 20\n")
    with pytest.raises(ConfigError, match=rf"^{f}:4: key 'per_measure' is given twice \(first on line 3\)"):
        yamlfile.check_files([f])


def test_the_graph_rejects_a_duplicated_key_in_a_configfile_in_one_line(tmp_path):
    (tmp_path / "over.yaml").write_text("seed: 1\nseed: 2\n")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "-n", "--cores", "1", "--configfile", str(ROOT / "config.yaml"), str(tmp_path / "over.yaml")],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr  # Snakemake prints its errors on stdout
    assert f"{tmp_path / 'over.yaml'}:2: key 'seed' is given twice (first on line 1); remove one" in out
    assert "Traceback" not in out


@pytest.mark.parametrize("variant, k", [("kshot0", 0), ("kshot00", 0), ("kshot21", 21)])
def test_a_kshot_variant_outside_the_bounds_of_analysis_kshot_k_is_rejected(variant, k):
    # kshot0 built "Here are 0 solved examples" prompts while analysis.kshot.k: 0 is rejected
    msg = rejected(lambda c: c.update(variants=["zero_shot", variant]),
                   rf"^config: variants\.1: '{variant}': k = {k} solved examples; k must be 1\.\.20, as analysis\.kshot\.k$")
    bound = rejected(lambda c: c.setdefault("analysis", {}).update(kshot={"k": k}), r"analysis\.kshot\.k")
    assert msg != bound
    lrw_config.validate({**copy.deepcopy(BASE), "variants": ["kshot1", "kshot20", "kshot"]})
