"""The README's fixtures example as written: `python -m tests.support.fixtures_config OUT SHARED`,
then `snakemake -n --configfile OUT/config.yaml` in a checkout (whose config.yaml is the
Snakefile's configfile). It plans every built measure of the fixture's datasets and nothing of
config.yaml's: its `ml100k` (a path source) replaces the default `ml100k` (a wheel) whole, and
only its own model runs."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

from lrworld.questions import measures

ROOT = Path(__file__).resolve().parents[2]


def test_readme_fixture_example_plans_only_its_own_datasets_and_models(tmp_path, shared_data):
    subprocess.run([sys.executable, "-m", "tests.support.fixtures_config", str(tmp_path / "fx"), str(shared_data)],
                   cwd=ROOT, check=True, timeout=600)
    cfg = __import__("yaml").safe_load((tmp_path / "fx/config.yaml").read_text())
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(ROOT / "config.yaml", run / "config.yaml")
    snakemake = Path(sys.executable).parent / "snakemake"
    proc = subprocess.run([str(snakemake), "-n", "--snakefile", str(ROOT / "Snakefile"), "--configfile",
                           str(tmp_path / "fx/config.yaml"), "-d", str(run), "--cores", "1"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    planned = set(re.findall(r"output: results/questions/([^/]+)/([a-z_0-9]+)\.jsonl", out))
    expected = {(ds, m) for ds, d in cfg["datasets"].items() for m in d["measures"]}
    assert planned == expected
    # the three LRWorld datasets name every built measure of their domain; captions feed multimodal
    for ds, domain in (("amazon", "product"), ("ml100k", "movie"), ("netflix", "movie")):
        assert {m for d, m in planned if d == ds} == set(measures.measure_ids(domain))
    assert re.search(r"captions\s+3", out)
    # config.yaml's wheel source is gone (nothing is fetched: every fixture source is a path), and
    # config.yaml's models do not run
    assert "rule fetch_raw:" not in out
    assert set(re.findall(r"output: results/answers/lrworld/[^/]+/([^/]+)\.json", out)) == {"random"}
