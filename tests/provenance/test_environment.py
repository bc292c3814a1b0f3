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


def test_a_job_record_names_its_python_relative_to_the_working_directory_or_by_name(tmp_path, monkeypatch):
    import sys

    from lrworld.provenance.environment import interpreter

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "executable", str(tmp_path / ".venv/bin/python"))
    assert interpreter() == ".venv/bin/python"
    monkeypatch.setattr(sys, "executable", "/opt/elsewhere/venv/bin/python3.11")
    assert interpreter() == "python3.11"


def test_a_recorded_template_resolves_to_this_installs_file_and_others_to_the_working_directory(tmp_path):
    from lrworld.core.package_files import packaged
    from lrworld.prompts.render import template_id, template_path
    from lrworld.provenance.trace import resolve

    name = template_id("movie", "attr_genre", "cot")
    assert name == "lrworld/templates/movie/attr_genre/cot.txt"
    assert resolve(tmp_path, name) == packaged(name) == template_path("movie", "attr_genre", "cot")
    assert resolve(tmp_path, "results/scores/x.json") == tmp_path / "results/scores/x.json"
