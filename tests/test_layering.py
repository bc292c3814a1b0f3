"""The package's floors (pyproject's [tool.importlinter] contracts): every import goes down, no two
siblings import each other in a cycle at any depth, and every subpackage has a floor. A checker that
never fails proves nothing, so the same check is also run on a copy with one upward import and one
cycle planted, and must fail there."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lint(root: Path) -> subprocess.CompletedProcess:
    # the packages found from `root` alone (the checkout's or a copy's), the contracts of its pyproject
    return subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                           "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True))"],
                          cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)


def test_the_package_keeps_its_floors():
    res = lint(ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Contracts: 2 kept, 0 broken." in res.stdout


def copy_of_package(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "lrworld", tmp_path / "lrworld", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def with_import(tmp_path: Path, module: str, target: str):
    """lint-imports over a copy of the package where `module` (a path under lrworld/) gains a
    function-level import of `target`."""
    root = copy_of_package(tmp_path)
    path = root / "lrworld" / module
    path.write_text(path.read_text() + f"\n\ndef _planted():\n    from {target.rpartition('.')[0]} import "
                                       f"{target.rpartition('.')[2]}\n")
    return lint(root)


def test_an_upward_import_breaks_the_floors(tmp_path):
    res = with_import(tmp_path, "core/io.py", "lrworld.workflow.plan")
    assert res.returncode == 1
    assert "Floors: every import goes down BROKEN" in res.stdout
    assert "lrworld.core.io -> lrworld.workflow.plan" in res.stdout


def test_a_cycle_inside_one_floor_breaks_the_siblings_contract(tmp_path):
    # lrworld.models.batch_api once imported the openai backend that imports it
    res = with_import(tmp_path, "models/batch_api.py", "lrworld.models.backends.openai")
    assert res.returncode == 1
    assert "No import cycle between siblings, at any depth BROKEN" in res.stdout
    assert "Floors: every import goes down KEPT" in res.stdout


def test_a_new_subpackage_needs_a_floor(tmp_path):
    root = copy_of_package(tmp_path)
    (root / "lrworld/newstage").mkdir()
    (root / "lrworld/newstage/__init__.py").write_text("")
    res = lint(root)
    assert res.returncode == 1
    assert "lrworld.newstage" in res.stdout
