"""Secrets in the config: the secret flags of a server command are redacted wherever the config is
recorded; a source URL with credentials, a key-like query or a non-http scheme is rejected at start."""

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
