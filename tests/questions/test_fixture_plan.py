"""`snakemake -n` on the three-domain fixture config plans every built measure of every dataset."""

import re
import subprocess
import sys
from pathlib import Path

from lrworld.questions import measures
from tests.support.fixtures_config import write_fixture_config

ROOT = Path(__file__).resolve().parents[2]


def test_dry_run_plans_every_built_measure(tmp_path, shared_data):
    cfg = write_fixture_config(tmp_path / "fx", shared_data)
    snakemake = Path(sys.executable).parent / "snakemake"
    proc = subprocess.run([str(snakemake), "-n", "--snakefile", str(ROOT / "Snakefile"), "--configfile",
                           str(tmp_path / "fx/config.yaml"), "-d", str(tmp_path / "run"), "--cores", "1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    planned = set(re.findall(r"output: results/questions/([^/]+)/([a-z_0-9]+)\.jsonl", out))
    expected = {(ds, m) for ds, d in cfg["datasets"].items() for m in d["measures"]}
    assert planned == expected
    # the three LRWorld datasets name every built measure of their domain; captions feed multimodal
    for ds, domain in (("amazon", "product"), ("ml100k", "movie"), ("netflix", "movie")):
        assert {m for d, m in planned if d == ds} == set(measures.measure_ids(domain))
    assert re.search(r"captions\s+3", out)
