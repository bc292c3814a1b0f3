"""Whether a process still runs, by pid: a zombie (exited, not yet reaped) counts as gone."""

from __future__ import annotations

import psutil


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
