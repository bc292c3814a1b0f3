"""Multimodal offline: with no network and no image_dir, the captions job stops at
once with one line, instead of minutes of failed downloads and a misleading
`positive_has_no_text` in the next job. No network is simulated by the network guard: every
connect outside loopback fails, as it does on a machine without one."""

import csv
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.support import netguard
from tests.support.fixtures_netflix import write_netflix

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def test_no_poster_and_no_image_dir_stops_the_captions_job_in_one_line(tmp_path):
    fx = write_netflix(tmp_path / "netflix", n_users=40, seed=0, extra_movies=200)
    rows = list(csv.reader(fx["metadata"].open(encoding="utf-8")))
    col = rows[0].index("poster_url")
    for i, row in enumerate(rows[1:]):
        row[col] = f"http://93.184.216.{i % 250}/poster/{i}.jpg"  # public hosts: only the network is missing
    with fx["metadata"].open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    cfg = {"seed": 1, "cache_dir": str(tmp_path / "cache"), "variants": ["zero_shot"],
           "datasets": {"nf": {"domain": "movie", "format": "netflix", "parts": [1, 2],
                               "source": {"path": str(tmp_path / "netflix")},
                               "metadata": {"netflix_metadata": str(fx["metadata"])}, "measures": ["multimodal"]}},
           "captioner": {"backend": "openai", "model": "vision", "base_url": "http://127.0.0.1:9/v1"},
           "models": {"random": {"backend": "random"}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    guard_log = tmp_path / "netguard.log"
    env = dict(os.environ, LRWORLD_NETGUARD_LOG=str(guard_log),
               PYTHONPATH=os.pathsep.join([str(netguard.SITE_DIR), os.environ.get("PYTHONPATH", "")]))
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "--cores", "1", "results/questions/nf/multimodal.jsonl"], capture_output=True, text=True,
                          env=env)
    took = time.monotonic() - t0
    assert proc.returncode != 0
    log = (tmp_path / "logs/captions/nf/requests.log").read_text().strip().splitlines()
    assert "datasets.nf: no poster could be fetched: set image_dir or run online" in log[-1]
    assert "'offline': " in log[-1] and "'unreachable': 3" in log[-1]
    assert len(guard_log.read_text().split()) == 3  # three tries, then the rest are skipped
    assert "Traceback" not in "\n".join(log) and "positive_has_no_text" not in proc.stdout + proc.stderr
    assert not (tmp_path / "results/questions/nf/multimodal.jsonl").exists()
    assert took < 600  # the counts above are the check (3 tries, not 200 timeouts); this only catches a hang
