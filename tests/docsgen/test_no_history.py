"""The project's text describes what is: no issue numbers, review rounds, branches or commit
comparisons outside CHANGELOG.md (lrworld/docsgen/lint.py holds the patterns)."""

from pathlib import Path

import pytest

from lrworld.docsgen.lint import HISTORY, history

ROOT = Path(__file__).resolve().parents[2]
TREES = ("docs", "lrworld", "tests", "rules", "scripts", "config", "benchmarks", "profiles", "envs", "examples", ".ci")
FILES = ("README.md", "Snakefile", "Makefile", "config.yaml", "pyproject.toml")
SUFFIXES = {".md", ".py", ".smk", ".yaml", ".yml", ".toml", ".rst", ".txt", ".sh", ".cfg", ".tsv", ".csv"}


def scanned() -> list[Path]:
    paths = [ROOT / f for f in FILES]
    for tree in TREES:
        paths += [p for p in (ROOT / tree).rglob("*") if p.is_file() and p.suffix in SUFFIXES
                  and "__pycache__" not in p.parts]
    return sorted(p for p in paths if p != Path(__file__).resolve())  # this file quotes history on purpose


def test_no_history_outside_the_changelog():
    hits = [hit for path in scanned() for hit in history(path, ROOT)]
    assert hits == [], "history belongs in CHANGELOG.md:\n" + "\n".join(hits)


def test_the_scan_covers_the_trees_and_leaves_the_changelog_alone():
    paths = {p.relative_to(ROOT).as_posix() for p in scanned()}
    assert {"README.md", "docs/security.md", "lrworld/docsgen/lint.py", "rules/common.smk",
            "tests/docsgen/test_snippet.py", "config.yaml"} <= paths
    assert "CHANGELOG.md" not in paths and "tests/docsgen/test_no_history.py" not in paths


@pytest.mark.parametrize("line, kind", [
    ("Trust round 2, part b", "review round"),
    ("the table before and after the fixes of issue 14", "issue number"),
    ("fixed in #27", "issue number"),
    ("Issues 23.2 and 23.3", "issue number"),
    ("| | main 6be1403 | this branch |", "branch"),
    ("(branch trust-e)", "branch"),
    ("re-plans 23 of the 31 on main 6be1403", "commit comparison"),
    ("0644 before da1691a", "commit comparison"),
    ("the guard (issue\n24: a looser match)", "issue number"),
    ("the audit no longer skips it", "then and now"),
    ("Before, one seed served all. Now each measure has its own.", "then and now"),
    ("A note. Before the fix the slots repeated. Now they do not.", "then and now"),
])
def test_each_kind_of_history_is_caught(tmp_path, line, kind):
    page = tmp_path / "p.md"
    page.write_text(f"intro\n{line}\n")
    (hit,) = [h for h in history(page, tmp_path) if f": {kind} (" in h]
    assert hit.startswith("p.md:2: ")


@pytest.mark.parametrize("line", [
    "a lossless round-trip; rounding to 4 places; round(x, 2)",
    "NeuMF: a GMF branch and an MLP branch",
    "list markers `#4`, `-`, `*` are removed; color:#222",
    "an issue with the server; the issues it raises",
    "sha256 `d854b61f928d`",
])
def test_ordinary_words_pass(tmp_path, line):
    page = tmp_path / "p.md"
    page.write_text(line + "\n")
    assert list(history(page, tmp_path)) == []


def test_a_generated_block_may_name_a_commit(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("<!-- bench_x:start (written by benchmarks/bench_x.py --write-docs) -->\n"
                    "commit 6be1403aa, before 590a734\n<!-- bench_x:end -->\nafter 590a734\n")
    assert [h.split(": ")[0] for h in history(page, tmp_path)] == ["p.md:4"]
    assert set(HISTORY) == {"issue number", "review round", "branch", "commit comparison",
                             "then and now"}
