"""Copying a release's files into results/, each checked against its manifest sha256."""

from __future__ import annotations

import shutil
from pathlib import Path

from lrworld.core import io
from lrworld.release.pack import ReleaseError


def copy_checked(sources: list[str], outputs: list[str], sha256: list[str]) -> None:
    for src, out, want in zip(sources, outputs, sha256, strict=True):
        got = io.sha256_file(src)
        if got != want:
            raise SystemExit(f"{src}: sha256 {got} differs from the release manifest's {want} "
                             "(a changed release: `lrworld verify` on the folder lists every file)")
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(str(out) + ".partial")
        shutil.copyfile(src, tmp)
        tmp.replace(out)


__all__ = ["copy_checked", "ReleaseError"]
