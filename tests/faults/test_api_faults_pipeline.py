"""API faults through the whole graph: a flaky server is survived with retries and only true
refusals count as missed; a server that stays down fails the job with a clear message."""

import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lrworld.core import io
from tests.support.fault_server import LOAD_FAULTS, FaultServer, prompt_digest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def run(workdir, shared_data, base_url, **model):
    cfg = {
        "seed": 4, "cache_dir": str(workdir / "cache"),
        "questions": {"history_length": 5, "per_measure": 40}, "variants": ["zero_shot"],
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                            "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": ["attr_genre"]}},
        "models": {"api": {"backend": "openai", "model": "smol", "base_url": base_url, "concurrency": 4,
                           "max_tokens": 8, "retry_base_s": 0.01, "retry_max_delay_s": 0.05, **model}},
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(cfg))
    return subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
                           "--cores", "2"], capture_output=True, text=True)


def refused(prompt):
    return int(prompt_digest(prompt), 16) % 8 == 0


def flaky(prompt, attempt):
    if refused(prompt):
        return "content_filter"
    rng = random.Random(f"{prompt_digest(prompt)}:{attempt}")
    return rng.choice(LOAD_FAULTS) if attempt < 2 and rng.random() < 0.5 else "ok"


def test_flaky_server_run_completes_and_missed_counts_only_refusals(tmp_path, shared_data):
    with FaultServer(plan=flaky) as srv:
        proc = run(tmp_path, shared_data, srv.base_url)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        faults = srv.faults_served()
    n_refused = sum(refused(p) for p in srv.requests)
    assert len(srv.requests) == 40 and 0 < n_refused < 40
    assert sum(faults[k.split(":")[0]] for k in LOAD_FAULTS) > 0, "no transient fault was served"
    score = io.read_json(tmp_path / "results/scores/ml/api/attr_genre/zero_shot.json")
    assert score["missed"] == n_refused
    recs = io.read_jsonl(tmp_path / "results/responses/ml/api/attr_genre/zero_shot.jsonl")
    assert sum(1 for r in recs if r["extra"].get("refusal")) == n_refused


def test_persistent_outage_fails_clearly_after_the_retry_budget(tmp_path, shared_data):
    with FaultServer(plan=lambda prompt, attempt: "500") as srv:
        proc = run(tmp_path, shared_data, srv.base_url, max_retries=2)
        per_prompt = max(srv.requests.values())
    assert proc.returncode != 0
    log = (tmp_path / "logs/answer/lrworld/ml/api.log").read_text()
    assert "api" in log and "500" in log
    assert per_prompt == 3  # one try and two retries, then the job gives up
    assert not (tmp_path / "results/answers/lrworld/ml/api.json").exists()
