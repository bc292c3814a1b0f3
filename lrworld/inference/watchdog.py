"""A managed server dies with its job: a small process started beside the server watches the
answer job and the process that runs it (Snakemake, or the cluster's job step). When either is
gone (a SIGKILL leaves no `finally` to run), it stops the server's process group: SIGTERM, then
SIGKILL after the grace time; and a job whose runner died is sent SIGTERM, so it unwinds too.

A separate process, not a thread of the job: a SIGKILLed job runs no thread. Polled, not the
kernel's parent-death signal: the server's own workers (a vLLM engine, llama.cpp's children) are
not its children, and the runner's death is not the job's.

    python -m lrworld.inference.watchdog JOB_PID RUNNER_PID SERVER_PGID GRACE_S
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from lrworld.core.processes import alive

POLL_S = 0.2


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _runner_gone(job: int, runner: int) -> bool:
    try:
        return psutil.Process(job).ppid() != runner or not alive(runner)
    except psutil.Error:
        return True


def watch(job: int, runner: int, pgid: int, grace_s: float) -> str:
    """Wait until the server group ends (the job stopped it) or its job or runner dies; what happened."""
    while _group_alive(pgid):
        if not alive(job) or _runner_gone(job, runner):
            if alive(job):
                with _quiet():
                    os.kill(job, signal.SIGTERM)
            with _quiet():
                os.killpg(pgid, signal.SIGTERM)
            deadline = time.monotonic() + grace_s
            while _group_alive(pgid) and time.monotonic() < deadline:
                time.sleep(0.05)
            with _quiet():
                os.killpg(pgid, signal.SIGKILL)
            return "stopped"
        time.sleep(POLL_S)
    return "ended"


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        return kind is not None and issubclass(kind, (ProcessLookupError, PermissionError))


def start(server_pgid: int, grace_s: float) -> subprocess.Popen:
    """Start the watchdog of the server group `server_pgid`, for this process as the job."""
    root = str(Path(__file__).resolve().parents[2])  # the checkout the job runs from, not another install
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    return subprocess.Popen([sys.executable, "-m", "lrworld.inference.watchdog", str(os.getpid()), str(os.getppid()),
                             str(server_pgid), str(grace_s)], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


if __name__ == "__main__":
    job_pid, runner_pid, group = (int(a) for a in sys.argv[1:4])
    watch(job_pid, runner_pid, group, float(sys.argv[4]))
