"""SIGKILL the whole Snakemake run while a model is answering, rerun, and compare with an
uninterrupted run. The model is the openai backend against a local server that logs every request,
so "never paid twice" is checked from the server's side."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from lrworld.core import io
from tests.support.fault_server import FaultServer

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def slow_ok(prompt, attempt):
    time.sleep(0.08)
    return "ok"


def config(workdir, shared_data, base_url, secret_env="LRW_TEST_KEY"):
    cfg = {
        "seed": 3, "cache_dir": str(workdir / "cache"),
        "questions": {"history_length": 5, "per_measure": 60},
        "variants": ["zero_shot", "cot"],
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                            "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": ["attr_genre"]}},
        "models": {"api": {"backend": "openai", "model": "smol", "base_url": base_url, "mode": "generate",
                           "concurrency": 2, "max_tokens": 8, "api_key_env": secret_env}},
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(cfg))


def snakemake(workdir, *extra, **kw):
    return subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
                             "--cores", "2", "--rerun-incomplete", *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True, **kw)


def cached(workdir) -> int:
    n = 0
    for db in (workdir / "cache/responses/api/lrworld").glob("ml.*.sqlite"):  # the answer jobs' shards
        try:
            with sqlite3.connect(db, timeout=1) as con:
                n += con.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        except sqlite3.OperationalError:
            pass
    return n


def responses(workdir):
    files = sorted((workdir / "results/responses/ml/api").rglob("*.jsonl"))
    return {f.relative_to(workdir).as_posix(): [(r["qid"], r["raw_text"], r["parsed"]) for r in io.read_jsonl(f)]
            for f in files}


SECRET = "sk-test-SECRET-4242424242"


@pytest.fixture(scope="module")
def clean(tmp_path_factory, shared_data):
    """One uninterrupted run of the graph, the key in the environment: the kill test's reference and
    the secret test's subject (one end-to-end build for both)."""
    work = tmp_path_factory.mktemp("clean")
    with FaultServer() as srv:
        config(work, shared_data, srv.base_url)
        proc = snakemake(work, env={**os.environ, "LRW_TEST_KEY": SECRET})
        out = proc.communicate()[0]
        assert proc.returncode == 0, out[-3000:]
        headers = set(srv.auth_headers)
    return work, out, headers


def test_sigkill_mid_inference_resumes_without_paying_twice(tmp_path, shared_data, clean):
    killed = tmp_path / "killed"
    killed.mkdir()
    with FaultServer(plan=slow_ok) as srv:
        config(killed, shared_data, srv.base_url)
        proc = snakemake(killed)
        deadline = time.monotonic() + 600
        while cached(killed) < 30:
            assert proc.poll() is None, proc.stdout.read()[-3000:]
            assert time.monotonic() < deadline, "no answers arrived"
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        before = cached(killed)
        assert before < 120, "the run finished before it could be killed"
        # a killed Snakemake leaves its lock: the documented recovery is --unlock, then rerun
        assert snakemake(killed, "--unlock").wait() == 0
        rerun = snakemake(killed)
        out = rerun.communicate()[0]
        assert rerun.returncode == 0, out[-3000:]
        # each of the 120 prompts answered once, except those in flight at the kill: up to
        # `concurrency` (2) requests on the wire plus as many answers received but not yet stored
        assert len(srv.answered) == 120
        twice = [p for p, n in srv.answered.items() if n > 1]
        assert len(twice) <= 4 and all(n <= 2 for n in srv.answered.values())
        assert sum(srv.answered.values()) - 120 == len(twice)
    # the same as the uninterrupted run (same prompts, the same server answers)
    ref = clean[0]
    assert responses(killed) == responses(ref) and len(responses(ref)) == 2
    assert (killed / "results/tables/ml.csv").read_text() == (ref / "results/tables/ml.csv").read_text()


def test_api_key_is_never_written(clean):
    work, out, headers = clean
    assert any(SECRET in h for h in headers), "the key from the environment was not used"
    assert SECRET not in out
    leaks = [p for p in work.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert leaks == []
