"""CPU threads of a job: torch's pool is capped at the threads Snakemake gave the job, so parallel
jobs on one node do not oversubscribe its cores."""

from __future__ import annotations


def limit_torch_threads(n: int) -> None:
    try:
        import torch
    except ImportError:  # the job has no torch work (nothing to cap)
        return
    torch.set_num_threads(max(1, int(n)))
