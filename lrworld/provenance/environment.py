"""What a provenance record says about the machine and the code: package versions, the git
commit and dirty flag, the host and a job's start/end times. Nothing here reads secrets, and
`redact` strips credential-like values from configs before they are recorded."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
import socket
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit, urlunsplit

from lrworld.core import io
from lrworld.core.secrets import REDACTED, redact_argv  # noqa: F401 (REDACTED: imported from here too)

# The packages whose versions shape a number (the list, plus the data stack under them).
PACKAGES = ("lrworld", "snakemake", "torch", "transformers", "openai", "mlxtend", "pandas",
            "numpy", "pyarrow", "huggingface_hub", "gguf")

_SECRET_KEY = re.compile(r"(?i)(api[_-]?key$|secret|password|passwd|authorization|bearer|^token$|access[_-]?token|credential)")


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def git_state(root: str | os.PathLike) -> dict[str, Any]:
    """The commit of the checkout at `root`, and whether tracked files differ from it."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)

    try:
        head = git("rev-parse", "HEAD")
    except (OSError, subprocess.SubprocessError) as exc:
        return {"commit": None, "dirty": None, "error": f"git not available: {exc.__class__.__name__}"}
    if head.returncode != 0:
        return {"commit": None, "dirty": None, "error": "not a git repository"}
    status = git("status", "--porcelain", "--untracked-files=no")
    changed = [line[3:] for line in status.stdout.splitlines() if line.strip()]
    return {"commit": head.stdout.strip(), "dirty": bool(changed), "changed": changed[:50]}


def utc_iso(t: float) -> str:
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def host() -> str:
    return socket.gethostname()


def interpreter() -> str:
    """The job's python: relative to the working directory when inside it (a project .venv), else
    its name only (another machine's venv path would tie the record to that machine)."""
    exe = Path(sys.executable)
    try:
        return exe.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return exe.name


class JobClock:
    """Start it when a Snakemake script begins; `write` records the job's start/end and host."""

    def __init__(self) -> None:
        self.start = time.time()

    def record(self, smk) -> dict:
        end = time.time()
        rec = {
            "rule": smk.rule,
            "wildcards": {k: v for k, v in smk.wildcards.items()},
            "host": host(),
            "start": utc_iso(self.start),
            "end": utc_iso(end),
            "seconds": round(end - self.start, 3),
            "pid": os.getpid(),
            "python": interpreter(),
        }
        for var in ("SLURM_JOB_ID", "SLURM_CLUSTER_NAME"):
            if os.environ.get(var):
                rec[var.lower()] = os.environ[var]
        return rec

    def write(self, smk, path: str | os.PathLike) -> dict:
        rec = self.record(smk)
        io.write_json(path, rec)
        return rec


def public_url(url: str) -> str:
    """A URL without user:password and query string (tokens travel there)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def redact(obj: Any) -> Any:
    """A copy of a config value with credential-like keys' values replaced and URLs cleaned."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if _SECRET_KEY.search(str(k)) and not str(k).endswith("_env"):
                out[k] = REDACTED
            elif str(k).lower() == "headers":
                out[k] = {hk: REDACTED for hk in v} if isinstance(v, dict) else REDACTED
            else:
                out[k] = redact(v)
        return out
    if isinstance(obj, (list, tuple)):
        return redact_argv([redact(v) for v in obj])
    if isinstance(obj, str) and re.match(r"^[a-z][a-z0-9+.-]*://", obj) and ("@" in obj or "?" in obj):
        return public_url(obj)
    return obj


def file_entry(path: str | os.PathLike, sha256: Callable[[Path], str] = io.sha256_file) -> dict:
    """A file's path, sha256 and size; `sha256` may be a digest store's cached lookup."""
    p = Path(path)
    return {"path": str(path), "sha256": sha256(p), "bytes": p.stat().st_size}
