"""Managed model servers (lrworld.inference.servers) with stand-in server processes: start, health,
substitution, stopping the whole process group (also when it ignores SIGTERM, and when the job
itself gets SIGTERM), a server that never becomes healthy or exits early, and no server for a job
whose prompts are all cached."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from lrworld.config import assembly as lrw_config
from lrworld.core.schema import ConfigError
from lrworld.models.registry import with_defaults
from lrworld.inference.cache import ResponseCache, cache_key
from lrworld.inference.servers import ServerError, Served, running_server
from lrworld.inference.stage import fill_cache

ROOT = Path(__file__).resolve().parents[2]
STUB = str(ROOT / "tests/support/stub_server.py")


def server(command, **kw) -> dict:
    return with_defaults({"backend": "openai", "server": {"command": command, **kw}})["server"]


def dead(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def wait_dead(pids, timeout=30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(dead(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def serving_job(tmp_path, cfg, setup="", state_dir=None):
    """An answer job in a subprocess that starts model m's server, prints "serving", and sleeps
    (for the test to signal it). `setup`: a line run first; `state_dir`: Served's server records."""
    return subprocess.Popen([sys.executable, str(job_script(tmp_path, cfg, setup, state_dir))],
                            stdout=subprocess.PIPE, text=True)


def job_script(tmp_path, cfg, setup="", state_dir=None) -> Path:
    """The script `serving_job` runs."""
    job = tmp_path / "job.py"
    state = f", state_dir={str(state_dir)!r}" if state_dir else ""
    job.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from lrworld.inference import servers
        {setup}
        with servers.Served("m", {cfg!r}{state}) as served:
            served.start()
            print("serving", flush=True)
            time.sleep(120)
    """))
    return job


def test_server_gets_port_gpus_env_and_its_whole_group_is_stopped(tmp_path):
    rec = tmp_path / "rec.json"
    srv = server(["{python}", STUB, "--port", "{port}", "--record", str(rec), "--child", "--gpus={gpus}"],
                 env={"STUB_FLAG": "on-{port}"}, stop_grace_s=5)
    assert srv["port"] == 0 and srv["health_path"] == "/health"  # the schema's defaults
    with running_server("stub", srv, gpus=2, log_path=tmp_path / "server.log") as url:
        port = int(url.split(":")[2].split("/")[0])
        assert url == f"http://127.0.0.1:{port}/v1"
        info = json.loads(rec.read_text())
        assert info["argv"][1:] == ["--port", str(port), "--record", str(rec), "--child", "--gpus=2"]
        assert info["env"]["STUB_FLAG"] == f"on-{port}"
        pids = [info["pid"], info["child_pid"]]
        assert not any(dead(p) for p in pids)
        assert psutil.Process(info["child_pid"]).pid != info["pid"]
    assert all(dead(p) for p in pids)  # the server and the worker it started
    assert "stub server listening" in (tmp_path / "server.log").read_text()


def test_a_server_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path):
    rec = tmp_path / "rec.json"
    srv = server(["{python}", STUB, "--port", "{port}", "--record", str(rec), "--ignore-term"], stop_grace_s=1)
    with running_server("stub", srv):
        pid = json.loads(rec.read_text())["pid"]
        t0 = time.monotonic()
    assert dead(pid)
    assert 0.9 < time.monotonic() - t0 < 30  # the grace period passed; the kill came long before a hang


def test_never_healthy_fails_in_its_timeout_with_one_line_and_the_log_tail(tmp_path):
    code = ("import time; print('INFO loading weights', flush=True); "
            "print('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB', flush=True); time.sleep(120)")
    srv = server(["{python}", "-c", code], startup_timeout_s=2, stop_grace_s=1)
    t0 = time.monotonic()
    with pytest.raises(ServerError) as err:
        with running_server("qwen2-7b-vllm", srv, log_path=tmp_path / "s.log"):
            pytest.fail("must not yield")
    elapsed = time.monotonic() - t0
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("models.qwen2-7b-vllm: server not healthy after 2s (GET http://127.0.0.1:")
    assert msg.endswith("last log lines: INFO loading weights | torch.OutOfMemoryError: CUDA out of memory. "
                        "Tried to allocate 2.00 GiB")
    assert 2 <= elapsed < 30  # the 2 s timeout, not the 120 s sleep
    assert not [p for p in psutil.process_iter(["cmdline"]) if "CUDA out of memory" in " ".join(p.info["cmdline"] or [])
                and not dead(p.pid)]


def test_a_server_that_exits_fails_at_once_with_its_exit_code(tmp_path):
    srv = server(["{python}", "-c", "import sys; print('error: unrecognized arguments: --tensor-parallel'); sys.exit(2)"],
                 startup_timeout_s=60)
    t0 = time.monotonic()
    with pytest.raises(ServerError, match=r"^models.m: server exited with code 2 before it became healthy; "
                                          r"last log lines: error: unrecognized arguments: --tensor-parallel$"):
        with running_server("m", srv, state_dir=tmp_path / "servers"):
            pass
    assert time.monotonic() - t0 < 45  # at once, not after the 60 s startup timeout
    assert not list((tmp_path / "servers").rglob("*.json"))  # its record went with it
    with pytest.raises(ServerError, match="could not start"):
        with running_server("m", server(["/nonexistent/vllm", "serve"])):
            pass


def test_sigterm_to_the_job_stops_its_server(tmp_path):
    """A job script (as scripts/answer.py) that installed exit_on_sigterm, killed while its server
    runs: it exits 143 and neither the server nor the server's worker survives."""
    rec = tmp_path / "rec.json"
    cfg = {"backend": "openai", "model": "m",
           "server": {"command": ["{python}", STUB, "--port", "{port}", "--record", str(rec), "--child"]}}
    proc = serving_job(tmp_path, cfg, "servers.exit_on_sigterm()")
    try:
        assert proc.stdout.readline().strip() == "serving"
        info = json.loads(rec.read_text())
        pids = [info["pid"], info["child_pid"]]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
        assert wait_dead(pids, timeout=30)
    finally:
        proc.kill()


def test_a_job_whose_prompts_are_all_cached_starts_no_server(tmp_path):
    cfg = {"backend": "openai", "model": "m", "mode": "choice", "server": {"command": ["/nonexistent/server"]}}
    prompt = {"qid": "q1", "prompt": "Which? A. x B. y", "labels": ["A", "B"]}
    cache = ResponseCache(tmp_path / "m.sqlite")
    with Served("m", cfg) as served:
        ident = served.backend().identity()
        assert ident["base_url"] == "managed" and len(ident["server_sha256"]) == 16
        cache.put(cache_key(ident, prompt["prompt"]), {"raw_text": "A", "choice_index": 0})
        info = fill_cache([prompt], served.backend, cache)
    assert info["asked"] == 0 and info["cached"] == 1
    # the identity follows the command, not the port a run happened to get
    other = Served("m", {**cfg, "server": {"command": ["/nonexistent/server", "--tp", "2"]}}).backend().identity()
    assert other["server_sha256"] != ident["server_sha256"] and {**other, "server_sha256": 0} == {**ident, "server_sha256": 0}


@pytest.mark.parametrize("entry, message", [
    ({"backend": "hf", "server": {"command": ["x"]}}, "models.m.server: unknown key for backend 'hf'"),
    ({"backend": "openai", "base_url": "http://h/v1", "server": {"command": ["x"]}},
     "models.m: `server` starts its own endpoint; remove base_url"),
    ({"backend": "openai", "server": {"command": ["x"], "prot": 1}}, "models.m.server.prot: unknown key"),
    ({"backend": "openai", "server": {"port": 8000}}, "models.m.server: 'command' is a required property"),
])
def test_impossible_server_entries_are_rejected_at_start(entry, message):
    cfg = yaml_default_config()
    cfg["models"] = {"m": entry}
    with pytest.raises(ConfigError, match="^config: " + message.replace("(", r"\(").replace(")", r"\)")):
        lrw_config.validate(cfg)


def yaml_default_config() -> dict:
    import yaml

    return yaml.safe_load((ROOT / "config.yaml").read_text())


def test_the_commented_server_and_batch_entries_of_config_yaml_are_valid():
    """Uncommented, config.yaml's vLLM and Batch API examples pass validation, and the 70B models
    split over the GPUs they ask for."""
    import re

    import yaml

    text = (ROOT / "config.yaml").read_text()
    lines = text.splitlines()
    entries = {}
    for line in lines:
        if re.match(r"  # [a-z0-9.-]+-(vllm|batch): +\{", line):
            entries.update(yaml.safe_load(line[4:]))
    start = lines.index("  # qwen2-7b-vllm:")
    block = [lines[start][4:]] + [x[4:] for x in lines[start + 1:] if x.startswith("  #   ")][:9]
    entries.update(yaml.safe_load("\n".join(block)))
    assert len(entries) == 11
    cfg = yaml_default_config()
    cfg["models"].update(entries)
    lrw_config.validate(cfg)
    for name, entry in entries.items():
        if "server" in entry:
            command = entry["server"]["command"]
            assert command[:2] == ["vllm", "serve"] and "--enable-prefix-caching" in command and "{port}" in command
            assert ("{gpus}" in command) == (entry["gpus"] == 2) == ("70b" in name or "72b" in name)
    assert entries["gpt-4o-mini-batch"]["batch"] is True


def stubs_alive(tag: str) -> list[int]:
    """Live stand-in servers whose command line carries `tag` (their --record path)."""
    out = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = " ".join(p.info["cmdline"] or [])
        if STUB in cmd and tag in cmd and not dead(p.pid):
            out.append(p.pid)
    return out


def watchdogs(job_pid: int) -> list[int]:
    """Live watchdog processes of the job `job_pid`."""
    return [p.pid for p in psutil.process_iter(["cmdline"]) if not dead(p.pid)
            and (p.info["cmdline"] or [])[1:4] == ["-m", "lrworld.inference.watchdog", str(job_pid)]]


def test_sigkill_of_the_job_stops_its_server_within_seconds(tmp_path):
    """No `finally` runs in a SIGKILLed job: its watchdog stops the server and the server's worker
    (a stand-in that also ignores nothing), and then exits."""
    rec = tmp_path / "rec.json"
    cfg = {"backend": "openai", "model": "m",
           "server": {"command": ["{python}", STUB, "--port", "{port}", "--record", str(rec), "--child"],
                      "stop_grace_s": 2}}
    proc = serving_job(tmp_path, cfg)
    try:
        assert proc.stdout.readline().strip() == "serving"
        info = json.loads(rec.read_text())
        guards = watchdogs(proc.pid)
        assert len(guards) == 1
        t0 = time.monotonic()
        proc.kill()
        assert wait_dead([info["pid"], info["child_pid"]], timeout=10)
        assert time.monotonic() - t0 < 5
        assert wait_dead(guards, timeout=5)
    finally:
        proc.kill()
        for pid in stubs_alive(str(tmp_path)):
            psutil.Process(pid).kill()


def test_sigkill_of_the_run_that_holds_the_job_stops_the_job_and_its_server(tmp_path):
    """The runner (Snakemake) SIGKILLed while its answer job serves: the watchdog sends the job
    SIGTERM (it unwinds, as scripts/answer.py does) and no server process is left within seconds."""
    rec = tmp_path / "rec.json"
    cfg = {"backend": "openai", "model": "m",
           "server": {"command": ["{python}", STUB, "--port", "{port}", "--record", str(rec), "--child"],
                      "stop_grace_s": 2}}
    script = job_script(tmp_path, cfg, "servers.exit_on_sigterm()")
    runner = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import subprocess, sys, time
        job = subprocess.Popen([sys.executable, {str(script)!r}], stdout=subprocess.PIPE, text=True)
        print(job.pid, job.stdout.readline().strip(), flush=True)
        time.sleep(120)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        job_pid, said = runner.stdout.readline().split()
        assert said == "serving"
        info = json.loads(rec.read_text())
        t0 = time.monotonic()
        runner.kill()
        assert wait_dead([int(job_pid), info["pid"], info["child_pid"]], timeout=10)
        assert time.monotonic() - t0 < 6
        assert stubs_alive(str(tmp_path)) == []
    finally:
        runner.kill()
        for pid in stubs_alive(str(tmp_path)):
            psutil.Process(pid).kill()


def test_a_server_left_by_a_sigkilled_job_is_stopped_by_the_next_start(tmp_path, caplog):
    """SIGKILL of the job (no `finally` runs) orphans its server group; the next start for the same
    model stops it (server and worker), so one server runs, and a clean stop leaves no record."""
    state = tmp_path / "servers"
    rec = tmp_path / "rec.json"
    cfg = {"backend": "openai", "model": "m",
           "server": {"command": ["{python}", STUB, "--port", "{port}", "--record", str(rec), "--child"],
                      "stop_grace_s": 2}}
    proc = serving_job(tmp_path, cfg, state_dir=state)
    try:
        assert proc.stdout.readline().strip() == "serving"
        info = json.loads(rec.read_text())
        orphans = [info["pid"], info["child_pid"]]
        assert len(list((state / "m").glob("*.json"))) == 1
        guards = watchdogs(proc.pid)
        assert len(guards) == 1
        psutil.Process(guards[0]).kill()  # the job's watchdog killed too (as by a kill of everything)
        proc.kill()
        assert proc.wait(timeout=30) == -signal.SIGKILL
        time.sleep(0.5)
        assert not any(dead(p) for p in orphans)  # without its watchdog the group outlives its job
        assert psutil.Process(info["pid"]).ppid() != proc.pid
        rec2 = tmp_path / "rec2.json"
        srv = server(["{python}", STUB, "--port", "{port}", "--record", str(rec2)], stop_grace_s=2)
        with caplog.at_level("WARNING", logger="lrworld.inference.server_records"):
            with running_server("m", srv, state_dir=state):
                assert wait_dead(orphans, timeout=30)
                new_pid = json.loads(rec2.read_text())["pid"]
                assert stubs_alive(str(tmp_path)) == [new_pid]  # exactly one server
                assert [p.name for p in (state / "m").iterdir()] == [f"{socket.gethostname()}-{os.getpid()}-{new_pid}.json"]
        stale = [r.getMessage() for r in caplog.records if "left running by a killed job" in r.getMessage()]
        assert len(stale) == 1 and f"pid {info['pid']}, process group {info['pid']}, owner pid {proc.pid} gone" in stale[0]
        assert "\n" not in stale[0]
        assert dead(new_pid) and list((state / "m").iterdir()) == []
    finally:
        proc.kill()
        for pid in stubs_alive(str(tmp_path)):
            psutil.Process(pid).kill()


def test_a_record_whose_pid_was_reused_or_whose_job_lives_kills_nothing(tmp_path):
    """A record naming a live process that is not the recorded server (its pid reused: other start
    time or command line) must not get it killed; nor must a live job's own server."""
    from lrworld.inference import server_records

    state = tmp_path / "servers"
    (state / "m").mkdir(parents=True)
    host = socket.gethostname()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # an owner that is no more
    bystanders = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", tag], start_new_session=True)
                  for tag in ("reused-time", "reused-cmd", "live-owner")]
    try:
        time.sleep(0.3)
        real = [server_records.describe(p.pid) for p in bystanders]
        servers_in_records = [
            {**real[0], "create_time": real[0]["create_time"] - 1000.0},     # same pid, started at another time
            {**real[1], "cmdline": ["vllm", "serve", "Qwen/Qwen2-7B"]},       # same pid, another program
            real[2]]                                                          # exactly the process...
        owners = [{"pid": gone.pid, "create_time": 1.0}] * 2 + [
            {k: v for k, v in server_records.describe(os.getpid()).items() if k != "cmdline"}]  # ...of a live job
        for s, o in zip(servers_in_records, owners):
            (state / "m" / f"{host}-{o['pid']}-{s['pid']}.json").write_text(
                json.dumps({"host": host, "model": "m", "server": {**s, "pgid": s["pid"]}, "owner": o}))
        assert server_records.reap_stale(state, "m", grace_s=1) == 0
        time.sleep(0.3)
        assert [b.poll() for b in bystanders] == [None, None, None]  # all three still running
        left = sorted(p.name for p in (state / "m").iterdir())
        assert left == [f"{host}-{os.getpid()}-{bystanders[2].pid}.json"]  # the two stale records dropped
    finally:
        for b in bystanders:
            b.kill()
            b.wait()
