"""Finding a Snakemake run's job processes in tests."""

from __future__ import annotations

import psutil


def descendant(pid: int, needle: str):
    """The first live descendant of `pid` whose command line contains `needle`, or None. A child
    that exits while we look (a zombie, gone) is skipped, not an error."""
    for p in psutil.Process(pid).children(recursive=True):
        try:
            if needle in " ".join(p.cmdline()):
                return p
        except (psutil.ZombieProcess, psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return None
