"""No secret reaches logs/ or Snakemake's metadata: credentials in a base_url are
rejected at start, HTTP client loggers are quiet, and every log line is redacted."""

import logging
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from lrworld.core import runlog
from tests.support.fault_server import FaultServer

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-logs-Secret-9876543210"


def test_log_lines_are_redacted_and_http_clients_are_quiet(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    smk = SimpleNamespace(log=[str(tmp_path / "job.log")], rule="answer")
    log = runlog.setup(smk)
    try:
        logging.getLogger("httpx2").info('HTTP Request: POST http://user:%s@127.0.0.1/v1 "200 OK"', KEY)
        log.info("calling http://user:%s@127.0.0.1:8000/v1 with Authorization: Bearer %s", "pw-1234567", KEY)
        try:
            raise RuntimeError(f"server said: Incorrect API key provided: {KEY}")
        except RuntimeError:
            log.exception("failed")
    finally:
        logging.shutdown()
        logging.basicConfig(force=True, handlers=[logging.NullHandler()])
    text = (tmp_path / "job.log").read_text()
    assert KEY not in text and "pw-1234567" not in text and "HTTP Request" not in text
    assert "http://***@127.0.0.1:8000/v1" in text and "Bearer ***" in text and "Incorrect API key provided: ***" in text


def run(tmp_path, shared_data, base_url):
    cfg = {"seed": 1, "cache_dir": str(tmp_path / "cache"), "questions": {"history_length": 5, "per_measure": 8},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": ["attr_genre"]}},
           "models": {"api": {"backend": "openai", "model": "smol", "base_url": base_url, "max_tokens": 8,
                                "api_key_env": "LRW_TEST_API_KEY"}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    return subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "--cores", "1", "results/answers/lrworld/ml/api.json"],
                          capture_output=True, text=True, env=dict(os.environ, OPENAI_API_KEY=KEY, LRW_TEST_API_KEY=KEY))


def leaks(folder: Path, secret: str) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.slow
def test_an_answer_job_with_a_key_leaves_it_nowhere(tmp_path, shared_data):
    with FaultServer() as srv:
        proc = run(tmp_path, shared_data, srv.base_url)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert srv.auth_headers == {f"Bearer {KEY}"}  # the key was used
    assert (tmp_path / ".snakemake/metadata").is_dir() and (tmp_path / "logs/answer/lrworld/ml/api.log").exists()
    assert leaks(tmp_path, KEY) == [] and KEY not in proc.stdout + proc.stderr


def test_credentials_in_the_base_url_stop_the_run_before_anything_is_written(tmp_path, shared_data):
    proc = run(tmp_path, shared_data, "http://user:pw-Secret-42@127.0.0.1:9/v1")
    assert proc.returncode != 0
    assert "models.api.base_url: credentials in the URL" in proc.stdout + proc.stderr
    assert "pw-Secret-42" not in proc.stdout + proc.stderr
    assert leaks(tmp_path, "pw-Secret-42") == [str(tmp_path / "config.yaml")]


def test_a_managed_server_log_is_0600_and_its_environment_has_no_openai_key(tmp_path, monkeypatch):
    """The server's log is 0600 under the usual umask (a server may print its command line, key
    flags and all, into it), and the server does not inherit OPENAI_API_KEY."""
    import json
    import os
    import stat

    from lrworld.inference.servers import running_server
    from lrworld.models.registry import with_defaults

    monkeypatch.setenv("OPENAI_API_KEY", "sk-inherited-7f3a")
    old_umask = os.umask(0o022)  # the usual umask, which made the log 0644
    rec, log = tmp_path / "rec.json", tmp_path / "logs/server.log"
    stub = str(ROOT / "tests/support/stub_server.py")
    srv = with_defaults({"backend": "openai",
                         "server": {"command": ["{python}", stub, "--port", "{port}", "--record", str(rec)]}})["server"]
    try:
        with running_server("stub", srv, log_path=log):
            env = json.loads(rec.read_text())["env"]
    finally:
        os.umask(old_umask)
    assert "OPENAI_API_KEY" not in env
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


COMMAND_KEY = "sk-cmd-Secret-1234567890"


@pytest.mark.slow
def test_a_key_on_a_managed_server_command_and_in_the_environment_is_nowhere(tmp_path, shared_data):
    """A fake key in `server.command` (`--api-key K`), another in the environment, a server that
    echoes its arguments and environment: neither key is in any file under .snakemake/, results/
    or logs/ (Snakemake's metadata keeps the redacted command and its sha256); the server did get
    its arguments."""
    server = {"command": ["{python}", str(ROOT / "tests/support/echo_openai_server.py"), "--port", "{port}",
                          "--api-key", COMMAND_KEY], "env": {"ECHO_API_KEY": KEY}, "startup_timeout_s": 60}
    cfg = {"seed": 1, "cache_dir": str(tmp_path / "cache"), "questions": {"history_length": 5, "per_measure": 8},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": ["attr_genre"]}},
           "models": {"managed": {"backend": "openai", "model": "echo", "max_tokens": 8, "server": server}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "--cores", "1", "results/scores/ml/managed/attr_genre/zero_shot.json"],
                          capture_output=True, text=True, env=dict(os.environ, OPENAI_API_KEY=KEY))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    server_log = (tmp_path / "logs/answer/lrworld/ml/managed.server.log").read_text()
    assert "args: --port" in server_log and "--api-key ***" in server_log and "request with" in server_log
    for secret in (COMMAND_KEY, KEY):
        assert [f for d in (".snakemake", "results", "logs") for f in leaks(tmp_path / d, secret)] == []
        assert secret not in proc.stdout + proc.stderr
    metadata = "".join(p.read_text() for p in (tmp_path / ".snakemake/metadata").iterdir())
    assert "secrets_sha256" in metadata and "<redacted>" in metadata


@pytest.mark.parametrize("url", [f"http://127.0.0.1:8000/v1/{COMMAND_KEY}/", f"http://127.0.0.1:8000/key={KEY}/v1",
                                 "http://127.0.0.1:8000/v1#" + KEY])
def test_a_key_in_a_url_path_or_fragment_stops_the_run_at_start(tmp_path, shared_data, url):
    proc = run(tmp_path, shared_data, url)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "models.api.base_url: a path segment of the URL looks like a credential" in out or \
        "models.api.base_url: a #fragment in the URL" in out
    assert COMMAND_KEY not in out and KEY not in out
    assert leaks(tmp_path / ".snakemake", KEY) == leaks(tmp_path / ".snakemake", COMMAND_KEY) == []
