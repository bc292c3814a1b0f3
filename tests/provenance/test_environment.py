import json
import subprocess

from lrworld.provenance import environment as env


def test_versions_name_the_issue_packages():
    v = env.versions()
    for name in ("snakemake", "torch", "transformers", "openai", "mlxtend", "pandas", "lrworld", "python"):
        assert name in v
    assert v["snakemake"].startswith("9.")


def test_git_state_of_a_checkout_and_of_a_plain_folder(tmp_path):
    assert env.git_state(tmp_path) == {"commit": None, "dirty": None, "error": "not a git repository"}
    repo = tmp_path / "r"
    repo.mkdir()
    run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (repo / "f.py").write_text("x = 1\n")
    run("add", "f.py")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    clean = env.git_state(repo)
    assert len(clean["commit"]) == 40 and clean["dirty"] is False
    (repo / "untracked.txt").write_text("not code\n")
    assert env.git_state(repo)["dirty"] is False
    (repo / "f.py").write_text("x = 2\n")
    dirty = env.git_state(repo)
    assert dirty["dirty"] is True and dirty["changed"] == ["f.py"]


def test_redact_removes_credentials_but_keeps_decoding_parameters():
    cfg = {"backend": "openai", "model": "gpt-x", "api_key": "sk-live-123", "api_key_env": "OPENAI_API_KEY",
           "max_tokens": 8, "token_param": "max_completion_tokens", "headers": {"Authorization": "Bearer sk-1"},
           "base_url": "https://user:pw@api.example.com/v1?key=abc", "nested": [{"password": "hunter2"}]}
    out = env.redact(cfg)
    text = json.dumps(out)
    for secret in ("sk-live-123", "sk-1", "pw@", "key=abc", "hunter2"):
        assert secret not in text
    assert out["api_key_env"] == "OPENAI_API_KEY" and out["max_tokens"] == 8
    assert out["token_param"] == "max_completion_tokens"
    assert out["base_url"] == "https://api.example.com/v1"


def test_job_clock_records_host_and_times(tmp_path):
    class Smk:
        rule = "score"
        wildcards = {"model": "random"}

    rec = env.JobClock().write(Smk, tmp_path / "job.json")
    assert rec["rule"] == "score" and rec["host"] and rec["start"] <= rec["end"]
    assert json.loads((tmp_path / "job.json").read_text())["wildcards"] == {"model": "random"}
