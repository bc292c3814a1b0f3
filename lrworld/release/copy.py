"""Copying a release's files into results/, each checked against its manifest sha256."""

from __future__ import annotations

import shutil
from pathlib import Path

from lrworld.core import io
from lrworld.release import source
from lrworld.release.pack import ReleaseError, read_manifest, release_file


def copy_checked(folder: str | Path, rels: list[str], outputs: list[str], dataset: str,
                 measures=(), variants=(), pin: str | None = None) -> None:
    """Copy release paths `rels` of `folder` to `outputs`. A manifest that is not the pinned one
    (`pin`: its sha256), a measure or variant the release lacks (a release at a URL is first read
    here) is named by its config key; a file whose sha256 is not the manifest's stops the copy
    before anything is written."""
    folder = Path(folder)
    source.check_pin(folder, pin)
    man = read_manifest(folder)
    line = source.problem(dataset, man, folder, measures=measures, variants=variants)
    if line:
        raise ReleaseError(line)
    for rel in rels:
        src, want = folder / rel, man["files"].get(rel)
        if want is None:
            raise ReleaseError(f"{folder / 'release.json'}: lists no {rel} (not a complete release)")
        got = io.sha256_file(src) if release_file(folder, rel) else "(missing, or not a plain file)"
        if got != want:
            raise ReleaseError(source.changed_line(src, got, want))
    for rel, out in zip(rels, outputs, strict=True):
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(str(out) + ".partial")
        shutil.copyfile(folder / rel, tmp)
        tmp.replace(out)


__all__ = ["copy_checked", "ReleaseError"]
