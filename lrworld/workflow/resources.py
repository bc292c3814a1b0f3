"""What a job asks the cluster for. Each backend says what its model needs
(`@register_backend(resources=...)`); site names (partitions) come from the environment, never
from files."""

from __future__ import annotations

import os

from lrworld.models.registry import resources as backend_resources


def for_model(cfg: dict) -> dict:
    """{"gpu": n, "gpu_model": type or ""} for the answer job of a model entry."""
    return dict(backend_resources(cfg))


def slurm_partition(gpus: int) -> str:
    """$LRWORLD_SLURM_GPU_PARTITION for GPU jobs, else $LRWORLD_SLURM_PARTITION; "" leaves it to
    the cluster's default. Local runs ignore it."""
    cpu = os.environ.get("LRWORLD_SLURM_PARTITION", "")
    return os.environ.get("LRWORLD_SLURM_GPU_PARTITION", cpu) if gpus else cpu
