"""Shared helpers of the groundtruth_* Snakemake scripts (log to snakemake.log[0], threads).

Each script starts with `sys.path[:0] = [snakemake.scriptdir, <repo root>]` so that this module
and the lrworld package import whether or not lrworld is installed."""

from __future__ import annotations

import json
import time
from pathlib import Path


class Log:
    def __init__(self, path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(path, "w", encoding="utf-8")
        self.t0 = time.perf_counter()

    def __call__(self, *msg):
        line = f"[{time.perf_counter() - self.t0:8.2f}s] " + " ".join(str(m) for m in msg)
        self.fh.write(line + "\n")
        self.fh.flush()

    def stats(self, name, obj):
        self(name, json.dumps(obj, sort_keys=True, default=str))


def limit_threads(n: int) -> None:
    try:
        import torch

        torch.set_num_threads(max(1, int(n)))
    except ImportError:
        pass
