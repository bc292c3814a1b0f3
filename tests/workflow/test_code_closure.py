"""A rule's code is the closure of its script's imports (lrworld/workflow/code.py). The walker
reads source with `ast`; it is checked here against the standard library's `modulefinder`, which
finds imports by scanning every code object's bytecode, on every script of the graph."""

import modulefinder
from pathlib import Path

import pytest

from lrworld.workflow import code

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "scripts").glob("*.py"))
# Packages whose modules register themselves: importing the file that calls `discover` loads
# every module of the package ({that file: package}).
DISCOVERED = {"lrworld/models/registry.py": "lrworld/models/backends",
              "lrworld/models/backends/__init__.py": "lrworld/models/backends",
              "lrworld/data/formats/__init__.py": "lrworld/data/formats",
              "lrworld/data/joins/__init__.py": "lrworld/data/joins"}


def _scan(script: Path) -> set[Path]:
    finder = modulefinder.ModuleFinder(path=[str(ROOT)])  # only the package: nothing else is scanned
    finder.run_script(str(script))
    return {Path(m.__file__).resolve() for name, m in finder.modules.items()
            if m.__file__ and name.split(".")[0] == "lrworld"}


def oracle(script: Path) -> set[Path]:
    files, done = _scan(script), set()
    while todo := {pkg for trigger, pkg in DISCOVERED.items() if ROOT / trigger in files} - done:
        for pkg in todo:
            for f in (ROOT / pkg).glob("*.py"):
                if not f.name.startswith("_"):
                    files |= _scan(f) | {f.resolve()}
        done |= todo
    return files | {script.resolve()}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_closure_matches_the_bytecode_scan(script):
    assert set(code.closure(ROOT, script)) == oracle(script)


def test_discovered_backends_are_in_the_answer_rule_code():
    files = {p.relative_to(ROOT).as_posix() for p in code.closure(ROOT, "scripts/answer.py")}
    assert {"lrworld/models/backends/hf.py", "lrworld/models/backends/openai.py",
            "lrworld/models/backends/random.py"} <= files
    # and not what the answer job never runs
    assert not any(f.startswith(("lrworld/groundtruth/", "lrworld/analysis/")) for f in files)


def test_digest_changes_with_any_file_of_the_closure(tmp_path):
    (tmp_path / "lrworld/sub").mkdir(parents=True)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "lrworld/__init__.py").write_text("")
    (tmp_path / "lrworld/sub/__init__.py").write_text("")
    (tmp_path / "lrworld/sub/a.py").write_text("def f():\n    from lrworld.sub import b\n")
    (tmp_path / "lrworld/sub/b.py").write_text("X = 1\n")
    (tmp_path / "lrworld/sub/c.py").write_text("Y = 1\n")
    (tmp_path / "scripts/s.py").write_text("from lrworld.sub.a import f\n")
    files = code.closure(tmp_path, "scripts/s.py")
    assert [p.relative_to(tmp_path).as_posix() for p in files] == [
        "lrworld/__init__.py", "lrworld/sub/__init__.py", "lrworld/sub/a.py", "lrworld/sub/b.py", "scripts/s.py"]
    before = code.digest(tmp_path, files)
    (tmp_path / "lrworld/sub/c.py").write_text("Y = 2\n")  # not imported: same digest
    assert code.digest(tmp_path, code.closure(tmp_path, "scripts/s.py")) == before
    (tmp_path / "lrworld/sub/b.py").write_text("X = 2\n")  # imported inside a function: new digest
    assert code.digest(tmp_path, code.closure(tmp_path, "scripts/s.py")) != before
