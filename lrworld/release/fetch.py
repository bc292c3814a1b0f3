"""A release at a URL (`source: {benchmark: {url, sha256}}`): downloaded with the data sources'
machinery (lrworld/data/download.py: resumable, the configured sha256 checked before anything is
unpacked), unpacked by lrworld/data/archives.py (zip or tar told by their bytes; members with an
absolute or '..' path refused, links never written), verified against its own manifest like
`lrworld verify`, and only then moved to its folder in one rename."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

from lrworld.data import archives
from lrworld.data.contract import DataError
from lrworld.data.download import download
from lrworld.release import layout, source
from lrworld.release.pack import ReleaseError, read_manifest, verify


def _root(tmp: Path, url: str) -> Path:
    """The unpacked release's folder: the shallowest one holding release.json (an archive of
    `tar czf ml.tar.gz -C releases ml` has it one level down)."""
    found = sorted(tmp.rglob(layout.MANIFEST), key=lambda p: len(p.parts))
    if not found:
        raise ReleaseError(f"{url}: the archive holds no {layout.MANIFEST} (not an `lrworld pack` release)")
    return found[0].parent


def fetch(dataset: str, spec: dict, domain: str, dest: Path, downloads: Path, log: logging.Logger,
          max_bytes: int | None = None) -> dict:
    """Fetch the release `spec` ({url, sha256}) of `dataset` into `dest`; its manifest."""
    key = f"config: datasets.{dataset}.source.benchmark"
    url, want = spec["url"], spec["sha256"].lower()
    archive = Path(downloads) / (PurePosixPath(urlparse(url).path).name or "release")
    log.info("fetching release %s", url)
    try:
        got = download(url, archive, {}, log)["sha256"]
    except DataError as exc:
        raise ReleaseError(f"{key}.url: {exc}") from None
    if got != want:
        archive.unlink()
        raise ReleaseError(f"{key}.sha256: {url} has sha256 {got}, not the configured {want} (the download was "
                           "deleted; check the URL, or the sha256 the release's publisher gave)")
    if archives.kind(archive) not in ("zip", "tar"):
        raise ReleaseError(f"{key}.url: {url} is not a zip or tar archive (pack a release folder with `tar czf`)")
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        wanted = archives.Wanted([], ["*"], max_bytes)
        try:
            archives.extract(archive, wanted, "", tmp)
        except DataError as exc:
            raise ReleaseError(f"{key}.url: {exc}") from None
        if wanted.refused:
            member = sorted(wanted.refused)[0]
            raise ReleaseError(f"{url}: member {member!r} refused: its path leads outside the release folder "
                               f"(absolute or '..'); {len(wanted.refused)} such members")
        root = _root(tmp, url)
        res = verify(root)
        if not res["ok"]:
            first = res["problems"][0]
            raise ReleaseError(f"{url}: {len(res['problems'])} files differ from its release.json, first "
                               f"{first['status']} {first['path']} (`lrworld verify` on the unpacked folder lists them)")
        man = read_manifest(root)
        line = source.problem(dataset, man, url, domain=domain)
        if line:
            raise ReleaseError(line)
        shutil.rmtree(dest, ignore_errors=True)
        root.rename(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log.info("release %s: %d files verified into %s", url, len(man["files"]), dest)
    return man
