"""What a job asks the cluster for. Each backend says what its model needs
(`@register_backend(resources=...)`: GPUs, host memory, throughput, start-up); an answer job's
time limit follows from that and the size of its request files, measured when the job is about
to be submitted (docs/slurm.md). Site names (partitions) come from the environment, never from
files."""

from __future__ import annotations

import math
import os

from lrworld.models.registry import SIZING_KEYS, resources as backend_resources

# Bytes of a request file per prompt token: the JSON fields beside each prompt (labels, digests,
# ids) add bytes, and these prompts (titles, years, numbered lists) tokenize densely; on the
# default run's prompts bytes / 4 is close to the real count (benchmarks/bench_request_tokens.py,
# docs/slurm.md).
BYTES_PER_TOKEN = 4
# Over the estimate: throughputs vary by prompt length, node and load.
TIME_SAFETY = 1.5
MEM_SAFETY = 1.25
# Never less than this: a job that starts at all gets time to load and write.
MIN_RUNTIME_MIN = 10
MIN_MEM_MB = 2000


def for_model(cfg: dict) -> dict:
    """What the answer job of a model entry needs: gpu, gpu_model, mem_gb, throughput_tokens_s, startup_s."""
    return dict(backend_resources(cfg))


def without_sizing(cfg: dict) -> dict:
    """A model entry without the keys that only size its job: what the rules' params carry, so
    that resizing a job re-runs nothing (nor naming the paper's row it is compared with)."""
    return {k: v for k, v in cfg.items() if k not in SIZING_KEYS and k != "paper_name"}


def request_tokens(files) -> int:
    """Prompt tokens of request files, estimated from their sizes. A file not written yet raises
    FileNotFoundError: Snakemake then shows the resource as <TBD> and evaluates it again when the
    job's inputs exist, just before it is submitted."""
    files = [files] if isinstance(files, (str, os.PathLike)) else files  # one named input is a plain path
    return math.ceil(sum(os.path.getsize(f) for f in files) / BYTES_PER_TOKEN)


def runtime_min(need: dict, tokens: int, attempt: int = 1) -> int:
    """Minutes: start-up plus the tokens at the model's throughput, times the safety factor; a
    retried job (TIMEOUT, OUT_OF_MEMORY) asks for `attempt` times as much."""
    seconds = need["startup_s"] + tokens / need["throughput_tokens_s"]
    return max(MIN_RUNTIME_MIN, math.ceil(seconds * TIME_SAFETY * attempt / 60))


def mem_mb(need: dict, attempt: int = 1) -> int:
    return max(MIN_MEM_MB, math.ceil(need["mem_gb"] * 1024 * MEM_SAFETY * attempt))


def slurm_partition(gpus: int) -> str:
    """$LRWORLD_SLURM_GPU_PARTITION for GPU jobs, else $LRWORLD_SLURM_PARTITION; "" leaves it to
    the cluster's default. Local runs ignore it."""
    cpu = os.environ.get("LRWORLD_SLURM_PARTITION", "")
    return os.environ.get("LRWORLD_SLURM_GPU_PARTITION", cpu) if gpus else cpu
