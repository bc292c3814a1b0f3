"""A rule's code is the closure of its script's imports (lrworld/workflow/code.py). The walker
reads source with `ast`; it is checked here against the standard library's `modulefinder`, which
finds imports by scanning every code object's bytecode, on every script of the graph."""

import functools
import json
import modulefinder
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lrworld.workflow import code
from tests.support.plugin_package import write_plugin

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "scripts").glob("*.py"))
# Packages whose modules register themselves (`discover`): loading the package loads them all; and
# the package whose modules' declarations its registry reads (a job resolves one of them).
DISCOVERED = ["lrworld/models/backends", "lrworld/models/shortcuts", "lrworld/data/formats", "lrworld/data/joins",
              "lrworld/recsys"]
READ_BY = {"lrworld/models/backends": "lrworld/models/registry.py", "lrworld/models/shortcuts": "lrworld/models/shortcut.py",
           "lrworld/recsys": "lrworld/recsys/registry.py"}


@functools.lru_cache(maxsize=None)  # the discovered packages' modules recur in most scripts' fixpoints
def _scan(path: Path, root: Path) -> frozenset[Path]:
    finder = modulefinder.ModuleFinder(path=[str(root)])  # only the package: nothing else is scanned
    finder.run_script(str(path))
    return frozenset({Path(m.__file__).resolve() for name, m in finder.modules.items()
                      if m.__file__ and name.split(".")[0] == "lrworld"} | {path.resolve()})


def oracle(script: Path, root: Path = ROOT) -> set[Path]:
    files, done = set(_scan(script, root)), set()
    while True:  # to a fixpoint: a discovered module may load another discovering package
        todo = [p for p in DISCOVERED if p not in done and (
            p != "lrworld/recsys" and (root / p / "__init__.py").resolve() in files
            or p in READ_BY and (root / READ_BY[p]).resolve() in files)]
        todo = [p for p in todo if p not in done]
        if not todo:
            return files
        for pkg in todo:
            done.add(pkg)
            for f in (root / pkg).glob("*.py"):
                files |= _scan(f, root)


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


PLUGIN_CLOSURE = """
import json, sys
from lrworld.workflow import code
index = code.CodeIndex(sys.argv[1])
files = index.closure("scripts/answer.py")
print(json.dumps({"files": [index.name(f) for f in files if not f.is_relative_to(index.root)],
                  "digest": index.digest(files)}))
"""


def test_a_plugin_registry_leads_into_the_plugins_modules(tmp_path):
    """A registry that loads a plugin group (lrworld.core.plugins) runs the modules its entry points
    name: they are in the closure, named relative to the plugin's folder, so an edit re-runs the
    rules that load them and a moved plugin folder re-runs nothing."""
    def closure(site):
        proc = subprocess.run([sys.executable, "-c", PLUGIN_CLOSURE, str(ROOT)], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])})
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads(proc.stdout)

    site = write_plugin(tmp_path / "site")
    before = closure(site)
    # the answer job loads backends (and the registries they read): not the artifact's module
    assert before["files"] == [f"lrworld_toyplug/{m}.py" for m in ("__init__", "backend", "measures", "rec",
                                                                    "tsv_format")]
    (site / "lrworld_toyplug/cooc.py").write_text((site / "lrworld_toyplug/cooc.py").read_text() + "# edited\n")
    assert closure(site)["digest"] == before["digest"]
    shutil.move(site, tmp_path / "moved")
    assert closure(tmp_path / "moved")["digest"] == before["digest"]
    backend = tmp_path / "moved/lrworld_toyplug/backend.py"
    backend.write_text(backend.read_text() + "# edited\n")
    assert closure(tmp_path / "moved")["digest"] != before["digest"]
