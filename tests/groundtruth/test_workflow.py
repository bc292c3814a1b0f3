"""Runs rules/groundtruth.smk on ML-100K in a temporary folder (slow: a real Snakemake run)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lrworld.io import read_jsonl, write_parquet

ROOT = Path(__file__).resolve().parents[2]
MEASURES = ["assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items"]


def _snakemake(wd, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "snakemake", "-c2", "--resources", "gpu=1", *args],
                          cwd=wd, env=env, capture_output=True, text=True, timeout=600)


def _config(wd, min_support):
    cfg = {"groundtruth": {"n_questions": 50, "assoc": {"min_support": min_support},
                           "neumf": {"epochs": 1, "eval_users": 100, "device": "cpu"}}}
    (wd / "config.yaml").write_text(yaml.safe_dump(cfg))


@pytest.mark.slow
def test_workflow_builds_all_five_and_reruns_only_what_a_threshold_touches(tmp_path, ml100k):
    inter, items = ml100k
    write_parquet(tmp_path / "results/data/ml100k/interactions.parquet", inter)
    write_parquet(tmp_path / "results/data/ml100k/items.parquet", items)
    (tmp_path / "Snakefile").write_text(
        f'configfile: "config.yaml"\ninclude: "{ROOT}/rules/groundtruth.smk"\n'
        'rule all:\n    input: expand("results/questions/ml100k/{m}.jsonl", m=MEASURES)\n')
    _config(tmp_path, 0.01)
    r = _snakemake(tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    for m in MEASURES:
        qs = read_jsonl(tmp_path / f"results/questions/ml100k/{m}.jsonl")
        assert len(qs) == 50 and all(q["measure"] == m for q in qs)
    model = __import__("torch").load(tmp_path / "results/gt/ml100k/neumf.pt", weights_only=False)
    assert model["log"][0]["epoch"] == 1 and 0 < model["hr10"] <= 1
    for log in ["assoc_rules", "item_similar_pairs", "user_similar_pairs", "neumf", "prototypes"]:
        assert (tmp_path / f"logs/gt/ml100k/{log}.log").stat().st_size > 0
    # a new min_support: only the rule mining and the assoc_rule questions are out of date
    _config(tmp_path, 0.015)
    r = _snakemake(tmp_path, "-n", "--quiet", "rules")
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout + r.stderr
    jobs = {ln.split()[0]: int(ln.split()[1]) for ln in out.splitlines()
            if len(ln.split()) == 2 and ln.split()[1].isdigit()}
    assert jobs.get("assoc_rules") == 1 and jobs.get("gt_questions") == 1, out
    assert not {"neumf", "similar_pairs", "prototypes"} & set(jobs), out
