"""Issue 27.7/27.8: secret flags of a server command are redacted wherever the config is recorded;
a source URL with credentials, a key-like query or a non-http scheme is rejected at start."""

import copy
from pathlib import Path

import pytest
import yaml

from lrworld.config import assembly as lrw_config
from lrworld.core.schema import ConfigError
from lrworld.provenance.environment import REDACTED, redact

ROOT = Path(__file__).resolve().parents[2]


def test_secret_flags_of_a_server_command_are_redacted():
    cmd = ["llama-server", "-m", "m.gguf", "--api-key", "sk-abc", "--hf-token=hf_x", "--port", "{port}",
           "--ssl-key-password", "pw"]
    assert redact({"server": {"command": cmd}})["server"]["command"] == [
        "llama-server", "-m", "m.gguf", "--api-key", REDACTED, f"--hf-token={REDACTED}", "--port", "{port}",
        "--ssl-key-password", REDACTED]


def base():
    return copy.deepcopy(yaml.safe_load((ROOT / "config.yaml").read_text()))


@pytest.mark.parametrize("url, why", [
    ("https://user:pw@example.org/ml.zip", "credentials in the URL"),
    ("https://example.org/ml.zip?code=abc123", "query parameter 'code' looks like a credential"),
    ("https://example.org/ml.zip?sig=abc", "query parameter 'sig' looks like a credential"),
    ("file:///proc/self/environ", "file:// URL; only http"),
])
def test_a_source_url_that_would_leak_or_read_local_files_is_rejected(url, why):
    cfg = base()
    name = next(iter(cfg["datasets"]))
    cfg["datasets"][name]["source"] = {"url": url, "sha256": "0" * 64}
    with pytest.raises(ConfigError, match=rf"datasets\.{name}\.source\.url: .*{why}"):
        lrw_config.validate(cfg)


def test_a_managed_server_log_is_0600_and_its_environment_has_no_openai_key(tmp_path, monkeypatch):
    """Issue 27.7: the server's log was 0644 (a server may print its command line, key flags and
    all, into it) and the server inherited OPENAI_API_KEY."""
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
