"""The backend registry: `@register_backend(name, schema=..., resources=...)` on a backend class.

A backend declares its config keys (a JSON-schema fragment with their defaults: the config
schema's `models` entries are derived from it) and what its answer job needs from the cluster
(GPUs, GPU type, memory, and the throughput that sizes its time limit), and what it can do
(`Capabilities`: local weights to check and digest, a tokenizer to count with, fixed decoding), so
the graph, the config checks, the token counts and the provenance never branch on a backend's
name. Every backend module lives in `lrworld.models.backends` (or an installed plugin package,
lrworld/core/plugins.py) and registers itself on import.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable

from lrworld.core import plugins
from lrworld.core.registry import Registry, discover

# What a model's answer job asks the cluster for (lrworld/workflow/resources.py, docs/slurm.md).
# Every model entry may set them; a backend's own fragment may give other defaults. They never
# change an answer, so the rules' params leave them out: resizing a job re-runs nothing.
SIZING_KEYS = {
    "gpus": {"type": "integer", "minimum": 0, "default": 0},
    "gpu_model": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},  # SLURM --gpus=<type>:<n>
    "gpu_mem_gb": {"type": "number", "minimum": 0},  # the model's weights and activations
    "mem_gb": {"type": "number", "exclusiveMinimum": 0, "default": 2},  # host memory of the job
    # prompt tokens answered per second, end to end (loading excluded): sizes the time limit
    "throughput_tokens_s": {"type": "number", "exclusiveMinimum": 0, "default": 1000},
    "startup_s": {"type": "number", "minimum": 0, "default": 60},  # loading the model, warming up
}
# Host memory of an answer job beside the model's weights: Python, torch, the tokenizer, the prompts.
HOST_GB = 4
# Keys every model entry may carry, whatever its backend.
COMMON_KEYS = {
    "backend": {"type": "string"},
    "enabled": {"type": "boolean", "default": True},
    **SIZING_KEYS,
}


def declared(cfg: dict) -> dict:
    """What the entry's sizing keys ask for (defaults filled): a backend's `resources` starts here."""
    gpus = cfg.get("gpus", 0)
    return {"gpu": gpus, "gpu_model": cfg.get("gpu_model", "") if gpus else "", "mem_gb": cfg["mem_gb"],
            "throughput_tokens_s": cfg["throughput_tokens_s"], "startup_s": cfg["startup_s"]}


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do, read instead of its name. Every field's default is "cannot"."""
    # (name, cfg) -> a one-line problem with the entry's local files (a missing folder or GGUF
    # file), or None; the config checks call it at start
    check_files: Callable[[str, dict], str | None] | None = None
    # (name, cfg) -> the weights part of the model's identity (file digests, a hub commit), planned
    # without loading the model: the `model_identity` rule's params
    weights: Callable[[str, dict], dict] | None = None
    # (name, cfg, local_only) -> count(text) -> tokens with the model's own tokenizer; None when
    # local_only and its files are not on this machine
    tokenizer: Callable[..., Callable[[str], int] | None] | None = None
    # (name, cfg) -> count(prompt) -> the input tokens the model reads for one prompt, its chat
    # template included (what `lrworld plan` sums); None when its files are not on this machine
    prompt_tokens: Callable[[str, dict], Callable[[str], int] | None] | None = None
    # decoding settings the backend fixes whatever the entry says (greedy: do_sample False), recorded
    decoding: dict = field(default_factory=dict)
    # its `model` may be a hub repository whose resolved commit the provenance records
    hub_model: bool = False
    # False: answers without reading the prompt (the random baseline): the paper's random row, and
    # a reasoning variant asks it nothing it cannot do
    reads_prompt: bool = True
    # answers through an OpenAI-compatible server that a `server:` block may start and stop
    managed_server: bool = False
    # answers through a paid API: the plan prices its tokens (`prices:`) and warns of a missing key
    priced: bool = False
    # a transformers causal LM whose embeddings a track (LLaRA) extends
    causal_lm: bool = False
    # sends a request's `image_paths` to the model (a vision-language model): the only kind that
    # may answer a variant that shows an image (`visual`)
    reads_images: bool = False


@dataclass(frozen=True)
class BackendEntry:
    name: str
    cls: type
    # JSON-schema properties of the backend's own keys, with their defaults
    schema: dict = field(default_factory=dict)
    # cfg (defaults filled) -> what the answer job requests: `declared`'s keys
    resources: Callable[[dict], dict] = declared

    # cfg (as the user wrote it) -> a one-line problem the schema cannot state, or None
    check: Callable[[dict], str | None] = lambda cfg: None
    # False for a backend the plan configures itself (a track's trained rows): no `models` entry names it
    configurable: bool = True
    can: Capabilities = field(default_factory=Capabilities)

    def with_defaults(self, cfg: dict) -> dict:
        return filled(cfg, {**COMMON_KEYS, **self.schema})


def filled(cfg: dict, properties: dict) -> dict:
    """A copy of cfg with each absent key's default, nested objects (a `server:` block) included."""
    out = dict(cfg)
    for key, spec in properties.items():
        if key not in out and "default" in spec:
            out[key] = copy.deepcopy(spec["default"])
        elif isinstance(out.get(key), dict) and "properties" in spec:
            out[key] = filled(out[key], spec["properties"])
    return out


BACKENDS: Registry[BackendEntry] = Registry("backend")


def register_backend(name: str, *, schema: dict | None = None, resources: Callable[[dict], dict] = declared,
                     check: Callable[[dict], str | None] | None = None, configurable: bool = True,
                     can: Capabilities | None = None):
    """`check(cfg)` sees the entry as written (before defaults) and returns a problem or None; `can`
    says what it can do (`Capabilities`). A backend outside `lrworld.models.backends`
    (`configurable=False`) is registered by importing its module, which the job that answers with
    it does."""
    return BACKENDS.decorator(name, lambda cls: BackendEntry(name, cls, schema or {}, resources,
                                                             check or (lambda cfg: None), configurable,
                                                             can or Capabilities()))


def with_defaults(cfg: dict) -> dict:
    """A model entry with its backend's defaults filled in (what the graph hands a backend)."""
    return backends().get(cfg["backend"]).with_defaults(cfg)


def backends() -> Registry[BackendEntry]:
    """The registry, with every backend module of the package and of the installed plugins
    (entry points `lrworld.backends`) imported."""
    discover("lrworld.models.backends")
    plugins.import_modules("lrworld.backends")
    return BACKENDS


def capabilities(cfg: dict) -> Capabilities:
    """What the backend a model entry names can do (nothing, for an unknown backend: the schema
    names that problem)."""
    reg = backends()
    return reg.get(cfg["backend"]).can if cfg.get("backend") in reg else Capabilities()


def configurable() -> list[str]:
    """The backends a `models` entry may name."""
    return [name for name, entry in backends().items() if entry.configurable]


def make_backend(name: str, cfg: dict):
    """The backend a model entry of config.yaml names (`backend:`), its defaults filled in.
    Backend modules import their heavy libraries lazily, so the random baseline never imports torch."""
    kind = cfg.get("backend")
    reg = backends()
    if kind not in reg:
        raise ValueError(f"models.{name}.backend: unknown backend {kind!r}; choose one of {reg.names()}")
    return reg.get(kind).cls(name, with_defaults(cfg))


def resources(cfg: dict) -> dict:
    """What a model's answer job requests (GPUs, GPU type, host memory, throughput, start-up), as
    its backend says."""
    entry = backends().get(cfg["backend"])
    return entry.resources(entry.with_defaults(cfg))
