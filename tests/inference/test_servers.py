"""Managed model servers (lrworld.inference.servers) with stand-in server processes: start, health,
substitution, stopping the whole process group (also when it ignores SIGTERM, and when the job
itself gets SIGTERM), a server that never becomes healthy or exits early, and no server for a job
whose prompts are all cached."""

from __future__ import annotations

import json
import signal
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
        with running_server("m", srv):
            pass
    assert time.monotonic() - t0 < 45  # at once, not after the 60 s startup timeout
    with pytest.raises(ServerError, match="could not start"):
        with running_server("m", server(["/nonexistent/vllm", "serve"])):
            pass


def test_sigterm_to_the_job_stops_its_server(tmp_path):
    """A job script (as scripts/answer.py) that installed exit_on_sigterm, killed while its server
    runs: it exits 143 and neither the server nor the server's worker survives."""
    rec = tmp_path / "rec.json"
    cfg = {"backend": "openai", "model": "m",
           "server": {"command": ["{python}", STUB, "--port", "{port}", "--record", str(rec), "--child"]}}
    job = tmp_path / "job.py"
    job.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from lrworld.inference import servers
        servers.exit_on_sigterm()
        with servers.Served("m", {cfg!r}) as served:
            served.start()
            print("serving", flush=True)
            time.sleep(120)
    """))
    proc = subprocess.Popen([sys.executable, str(job)], stdout=subprocess.PIPE, text=True)
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
