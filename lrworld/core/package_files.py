"""Files shipped inside the lrworld package (prompt templates, the captioner's instruction), named
relative to the package in rule params and provenance records: a moved checkout or another venv
holds them under another absolute path, so only the name and the content may be recorded."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
PREFIX = "lrworld/"


def is_packaged(name: str | Path) -> bool:
    return str(name).startswith(PREFIX + "templates/")


def packaged(name: str | Path) -> Path:
    """The file a package-relative name (`lrworld/templates/...`) stands for in this install; any
    other path is returned as it is (a user's own file, relative to the working directory)."""
    return PACKAGE_DIR / str(name)[len(PREFIX):] if is_packaged(name) else Path(name)
