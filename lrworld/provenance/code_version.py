"""Which code this is: the package's version and, in a git checkout, its commit and whether
tracked files differ from it (git's own `rev-parse HEAD` and `status --porcelain
--untracked-files=no`, the rule setuptools-scm applies), read at run time so that an editable
install names the commit it runs, not the one it was installed from.

The string form is a PEP 440 version with a local part, as setuptools-scm writes it:
`0.1.0+g2dbda07` for a clean checkout, `0.1.0+g2dbda07.dirty` for one with local changes, the bare
version outside a checkout."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from lrworld.provenance.environment import git_state

ROOT = Path(__file__).resolve().parents[2]


def package_version() -> str:
    try:
        return metadata.version("lrworld")
    except metadata.PackageNotFoundError:  # a checkout on PYTHONPATH, not installed
        from lrworld import __version__

        return __version__


def _is_checkout(root: Path) -> bool:
    # the package's own checkout, not a git repository that merely contains an installed copy
    return (root / ".git").exists() and (root / "lrworld" / "__init__.py").exists()


def code_version(root: str | Path | None = None) -> dict:
    """{"version", "commit", "dirty", "full"}: commit and dirty are None outside a checkout."""
    root = Path(root) if root is not None else ROOT
    version = package_version()
    git = git_state(root) if _is_checkout(root) else {"commit": None, "dirty": None}
    commit, dirty = git.get("commit"), git.get("dirty")
    full = version if not commit else f"{version}+g{commit[:7]}" + (".dirty" if dirty else "")
    return {"version": version, "commit": commit, "dirty": dirty, "full": full}


def describe(root: str | Path | None = None) -> str:
    """One line for `lrworld --version`."""
    v = code_version(root)
    if not v["commit"]:
        return f"lrworld {v['version']} (not a git checkout: commit unknown)"
    return f"lrworld {v['full']} (commit {v['commit']}{', with uncommitted changes' if v['dirty'] else ''})"
