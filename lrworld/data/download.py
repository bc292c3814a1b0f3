"""Resumable HTTP(S) downloads with a progress bar and checksums.

Bytes go to `<name>.part`; an interrupted download resumes from there with a Range request (a
server that ignores it sends the whole file again, which restarts it). Only a complete download
whose checksum matches is renamed to `<name>`, so a partial file never counts as fetched.
The progress bar is `lrworld.core.progress.bar` (a bar on a terminal, periodic lines in a log).
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import urllib.error
import urllib.request
from pathlib import Path

from lrworld.core import progress
from lrworld.data.contract import DataError

CHUNK = 1 << 20
RETRIES = 3
TIMEOUT_S = 60


def digests(path: Path) -> dict[str, str]:
    sha, md5 = hashlib.sha256(), hashlib.md5()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK):
            sha.update(block)
            md5.update(block)
    return {"sha256": sha.hexdigest(), "md5": md5.hexdigest()}


def check(path: Path, expect: dict[str, str], url: str) -> dict[str, str]:
    got = digests(path)
    for algo in ("sha256", "md5"):
        if algo in expect and got[algo] != expect[algo].lower():
            raise DataError(f"{url}: {algo} mismatch: expected {expect[algo].lower()}, got {got[algo]} (the download "
                            f"was deleted; check the URL and the checksum in config)")
    return got


def _attempt(url: str, part: Path, log: logging.Logger) -> bool:
    """One request from where `part` ends; True when the file is complete."""
    offset = part.stat().st_size if part.exists() else 0
    req = urllib.request.Request(url, headers={"User-Agent": "lrworld-fetch", **(
        {"Range": f"bytes={offset}-"} if offset else {})})
    try:
        resp = urllib.request.urlopen(req, timeout=TIMEOUT_S)  # noqa: S310 (scheme checked by the schema)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:  # nothing left to send: the part file is whole
            return True
        raise DataError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    with resp:
        status = getattr(resp, "status", None) or 200
        if offset and status != 206:
            offset = 0  # the server ignored the Range request: start over
        length = resp.headers.get("Content-Length")
        total = offset + int(length) if length is not None else None
        got = offset
        shown = progress.bar(total, part.name[:-5], "B", log, initial=offset, unit_scale=True, unit_divisor=1024)
        with open(part, "ab" if offset else "wb") as out, shown as bar:
            while True:
                block = resp.read(CHUNK)
                if not block:
                    break
                out.write(block)
                got += len(block)
                bar.update(len(block))
        return total is None or got >= total


def download(url: str, target: Path, expect: dict[str, str], log: logging.Logger) -> dict[str, str]:
    """Fetch `url` to `target` (resuming a `.part`); returns the file's sha256 and md5."""
    target = Path(target)
    if target.exists():
        return check(target, expect, url)
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    if part.exists():
        log.info("resuming %s from byte %d", url, part.stat().st_size)
    for attempt in range(1, RETRIES + 1):
        try:
            if _attempt(url, part, log):
                break
            problem = "connection closed early"
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError, OSError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
        log.warning("%s: attempt %d of %d stopped at byte %d (%s)", url, attempt, RETRIES,
                    part.stat().st_size if part.exists() else 0, problem)
    else:
        raise DataError(f"{url}: download interrupted {RETRIES} times; the partial file {part} is kept and the next "
                        f"run resumes it")
    try:
        got = check(part, expect, url)
    except DataError:
        part.unlink()
        raise
    part.replace(target)
    return got
