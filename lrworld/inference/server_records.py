"""Records of running managed servers, for the case no `finally` can handle: the answer job killed
with SIGKILL (a node's OOM killer, `kill -9` of the run, a SLURM job past its kill wait) leaves its
server's process group running with parent 1, and the next run would start a second one beside it.

Each server started with a state dir writes `<state_dir>/<model>/<host>-<owner pid>-<server pid>.json`
holding the server's pid, process group, start time and command line, and its owning job's pid and
start time; the record is removed when the server is stopped. Before a server for `model` starts,
the records of this host whose owner is gone are read: a server that still matches its record (same
pid, start time, command line and group; a reused pid matches none of them) has its group stopped
(SIGTERM, SIGKILL after the grace period) with one warning line, and the record is dropped either way.
A record whose owner still runs belongs to a live job (two datasets answering with one model) and
is left alone.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import time
from pathlib import Path

import psutil

from lrworld.core.io import atomic_path

log = logging.getLogger(__name__)


def describe(pid: int) -> dict:
    """What identifies a process beyond its pid (which the kernel reuses)."""
    p = psutil.Process(pid)
    return {"pid": pid, "create_time": p.create_time(), "cmdline": p.cmdline()}


def _matches(rec: dict, *, cmdline: bool) -> bool:
    try:
        now = describe(rec["pid"])
    except (psutil.Error, KeyError, TypeError, ValueError):
        return False
    if abs(now["create_time"] - rec.get("create_time", -1)) > 0.05:
        return False
    if psutil.Process(rec["pid"]).status() == psutil.STATUS_ZOMBIE:
        return False
    return not cmdline or now["cmdline"] == rec.get("cmdline")


def _folder(state_dir: str | os.PathLike, model: str) -> Path:
    return Path(state_dir) / model


def write(state_dir: str | os.PathLike, model: str, server_pid: int) -> Path:
    """Record the server `server_pid` (a session leader) as owned by this process."""
    host = socket.gethostname()
    path = _folder(state_dir, model) / f"{host}-{os.getpid()}-{server_pid}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    rec = {"host": host, "model": model, "server": {**describe(server_pid), "pgid": os.getpgid(server_pid)},
           "owner": {k: v for k, v in describe(os.getpid()).items() if k != "cmdline"}}
    with atomic_path(path) as tmp:
        os.chmod(tmp, 0o600)  # it holds the server's command line, which may carry a key
        tmp.write_text(json.dumps(rec, indent=1))
    return path


def _group_members(pgid: int) -> list[int]:
    members = []
    for p in psutil.process_iter():
        try:
            if os.getpgid(p.pid) == pgid and p.status() != psutil.STATUS_ZOMBIE:
                members.append(p.pid)
        except (psutil.Error, OSError):
            continue
    return members


def _stop_group(pgid: int, grace_s: float) -> None:
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait_s
        while _group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _group_members(pgid):
            return


def reap_stale(state_dir: str | os.PathLike, model: str, grace_s: float) -> int:
    """Stop the servers for `model` that killed jobs of this host left running; the count stopped."""
    reaped = 0
    for path in sorted(_folder(state_dir, model).glob(f"{socket.gethostname()}-*.json")):
        try:
            rec = json.loads(path.read_text())
            owner, server = rec["owner"], rec["server"]
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("models.%s: unreadable server record %s removed", model, path)
            path.unlink(missing_ok=True)
            continue
        if _matches(owner, cmdline=False):
            continue  # its job still runs: a live server, not an orphan
        if _matches(server, cmdline=True) and _safe_pgid(server):
            log.warning("models.%s: stopping a server left running by a killed job (pid %d, process group %d, "
                        "owner pid %d gone; record %s)", model, server["pid"], server["pgid"], owner.get("pid", -1), path)
            _stop_group(server["pgid"], grace_s)
            reaped += 1
        path.unlink(missing_ok=True)
    return reaped


def _safe_pgid(server: dict) -> bool:
    """The group is still the server's own session (never this process's group)."""
    try:
        pgid = os.getpgid(server["pid"])
    except OSError:
        return False
    return pgid == server.get("pgid") == server["pid"] and pgid != os.getpgrp()
