"""rules/llara.smk parses and plans the whole track (Snakemake dry run, no jobs executed)."""

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_llara_rules_dry_run(tmp_path, shared_data):
    llara = shared_data / "llara"
    config = {
        "models": {"random": {"backend": "random", "seed": 0}},
        "llara": {
            "seed": 0, "n_candidates": 20, "epochs": 2, "baselines": ["popularity", "gru4rec"], "models": ["random"],
            "datasets": {
                "steam": {"path": str(llara / "steam"), "train_files": ["train_data_first1000.jsonl"],
                          "train_expand": ["Val_data.jsonl"], "template": "steam"},
                "lastfm": {"path": str(llara / "lastfm"), "train_files": ["train_data.jsonl"], "template": "lastfm"},
            },
        },
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    (tmp_path / "Snakefile").write_text(f'configfile: "config.yaml"\ninclude: "{ROOT / "rules" / "llara.smk"}"\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-c1", "llara_all"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout + out.stderr
    for rule, count in [("llara_candidates", 2), ("llara_prompts", 2), ("llara_answer", 2), ("llara_baseline", 4),
                        ("llara_score", 6), ("llara_table", 1)]:
        assert any(line.split()[:2] == [rule, str(count)] for line in text.splitlines()), (rule, text[-2000:])
