"""The backend registry: `@register_backend(name, schema=..., resources=...)` on a backend class.

A backend declares its config keys (a JSON-schema fragment with their defaults: the config
schema's `models` entries are derived from it) and what its answer job needs from the cluster
(GPUs, GPU type), so the graph never guesses from the backend's name. Every backend module lives
in `lrworld.models.backends` and registers itself on import.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable

from lrworld.core.registry import Registry, discover

# Keys every model entry may carry, whatever its backend.
COMMON_KEYS = {
    "backend": {"type": "string"},
    "enabled": {"type": "boolean", "default": True},
}


def no_gpu(cfg: dict) -> dict:
    return {"gpu": 0, "gpu_model": ""}


@dataclass(frozen=True)
class BackendEntry:
    name: str
    cls: type
    # JSON-schema properties of the backend's own keys, with their defaults
    schema: dict = field(default_factory=dict)
    # cfg (defaults filled) -> {"gpu": int, "gpu_model": str}: what the answer job requests
    resources: Callable[[dict], dict] = no_gpu

    def with_defaults(self, cfg: dict) -> dict:
        out = dict(cfg)
        for key, spec in {**COMMON_KEYS, **self.schema}.items():
            if key not in out and "default" in spec:
                out[key] = copy.deepcopy(spec["default"])
        return out


BACKENDS: Registry[BackendEntry] = Registry("backend")


def register_backend(name: str, *, schema: dict | None = None, resources: Callable[[dict], dict] = no_gpu):
    return BACKENDS.decorator(name, lambda cls: BackendEntry(name, cls, schema or {}, resources))


def backends() -> Registry[BackendEntry]:
    """The registry, with every backend module of the package imported."""
    discover("lrworld.models.backends")
    return BACKENDS


def make_backend(name: str, cfg: dict):
    """The backend a model entry of config.yaml names (`backend:`), its defaults filled in.
    Backend modules import their heavy libraries lazily, so the random baseline never imports torch."""
    kind = cfg.get("backend")
    reg = backends()
    if kind not in reg:
        raise ValueError(f"models.{name}.backend: unknown backend {kind!r}; choose one of {reg.names()}")
    entry = reg.get(kind)
    return entry.cls(name, entry.with_defaults(cfg))


def resources(cfg: dict) -> dict:
    """What a model's answer job requests (GPUs, GPU type), as its backend says."""
    entry = backends().get(cfg["backend"])
    return entry.resources(entry.with_defaults(cfg))
