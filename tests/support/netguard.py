"""A guard for tests that handle hostile URLs: any socket connect to an address outside the
loopback range fails with OSError before a packet leaves, and is recorded. So a test of a
refusal (169.254.169.254, a private host) never sends traffic even when the code under test is
wrong: it fails on the recorded attempt instead.

In-process: `install()` (returns the list of attempts). In a subprocess (a Snakemake run): put
`SITE_DIR` first on PYTHONPATH; its sitecustomize installs the guard and appends every attempt
to the file named by $LRWORLD_NETGUARD_LOG.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path

SITE_DIR = Path(__file__).resolve().parent / "netguard_site"
_original = socket.socket.connect
attempts: list[str] = []


def _loopback(address) -> bool:
    if not isinstance(address, tuple):  # AF_UNIX paths
        return True
    try:
        return ipaddress.ip_address(str(address[0]).split("%")[0]).is_loopback
    except ValueError:
        return False


def _guarded(self, address):
    if not _loopback(address):
        attempts.append(str(address[0]))
        log = os.environ.get("LRWORLD_NETGUARD_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(f"{address[0]}\n")
        raise OSError(f"netguard: connection to {address[0]} blocked (tests reach loopback only)")
    return _original(self, address)


def install() -> list[str]:
    socket.socket.connect = _guarded
    return attempts


def uninstall() -> None:
    socket.socket.connect = _original
