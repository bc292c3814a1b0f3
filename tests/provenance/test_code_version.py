"""`lrworld --version` and release.json name the code: version, git commit, dirty flag."""

import subprocess

from lrworld.cli import main
from lrworld.provenance import code_version
from tests.graph import ROOT


def git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout.strip()


def test_the_cli_prints_the_checkouts_commit(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    head = git(ROOT, "rev-parse", "HEAD")
    assert out.startswith(f"lrworld {code_version.package_version()}+g{head[:7]}") and f"commit {head}" in out


def test_a_change_to_a_tracked_file_marks_the_version_dirty(tmp_path):
    (tmp_path / "lrworld").mkdir()
    (tmp_path / "lrworld/__init__.py").write_text("x = 1\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = git(tmp_path, "rev-parse", "HEAD")
    clean = code_version.code_version(tmp_path)
    assert (clean["commit"], clean["dirty"]) == (head, False) and clean["full"].endswith(f"+g{head[:7]}")
    (tmp_path / "untracked.txt").write_text("not code\n")  # untracked files do not count (setuptools-scm's rule)
    assert code_version.code_version(tmp_path)["dirty"] is False
    (tmp_path / "lrworld/__init__.py").write_text("x = 2\n")
    dirty = code_version.code_version(tmp_path)
    assert dirty["dirty"] is True and dirty["full"] == f"{clean['version']}+g{head[:7]}.dirty"
    assert "with uncommitted changes" in code_version.describe(tmp_path)


def test_outside_a_checkout_the_commit_is_unknown_not_guessed(tmp_path):
    (tmp_path / "lrworld").mkdir()
    (tmp_path / "lrworld/__init__.py").write_text("")
    v = code_version.code_version(tmp_path)
    assert v["commit"] is None and v["full"] == v["version"]
    assert "commit unknown" in code_version.describe(tmp_path)
