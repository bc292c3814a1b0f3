"""Extensions from outside the checkout: an installed package declares what it adds in its entry
points (as Inspect's `inspect_ai` group and lm-evaluation-harness's plugins do), one group per
registry, and each registry loads its group where it loads its built-in entries, so the schema,
the plan, the audit and the tables see a plugin's entries like the built-in ones.

    [project.entry-points."lrworld.backends"]      # a module that registers with @register_backend
    mine = "my_package.backend"
    [project.entry-points."lrworld.formats"]       # a module that registers with formats.register
    [project.entry-points."lrworld.joins"]         # a module that registers with joins.register
    [project.entry-points."lrworld.recommenders"]  # a module with a RECOMMENDER literal (read by ast)
    [project.entry-points."lrworld.measures"]      # "module:attr": a tuple of Measure; a module's
                                                   # TEMPLATES folder holds <domain>/<id>/<variant>.txt
    [project.entry-points."lrworld.artifacts"]     # "module:attr": {name: Artifact} (ground truth)

Shortcut answerers are backends. A plugin that fails to load is named with its package in one
line. Entries are read once per process, sorted by name, so every job sees the same registry.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import EntryPoint, entry_points

GROUPS = ("lrworld.backends", "lrworld.formats", "lrworld.joins", "lrworld.recommenders", "lrworld.measures",
          "lrworld.artifacts")


class PluginError(ImportError):
    """A plugin's entry point names a module or attribute that does not load."""


@cache
def points(group: str) -> tuple[EntryPoint, ...]:
    """The installed entry points of `group`, sorted by name (one per name: the first found)."""
    if group not in GROUPS:
        raise ValueError(f"unknown lrworld plugin group {group!r}; known: {', '.join(GROUPS)}")
    seen = {}
    for ep in entry_points(group=group):
        seen.setdefault(ep.name, ep)
    return tuple(seen[name] for name in sorted(seen))


def where(ep: EntryPoint) -> str:
    dist = f" (package {ep.dist.name} {ep.dist.version})" if ep.dist is not None else ""
    return f"entry point {ep.group}:{ep.name} = {ep.value!r}{dist}"


def load(ep: EntryPoint):
    """What the entry point names (a module, or its attribute), imported now."""
    try:
        return ep.load() if ep.attr else importlib.import_module(ep.module)
    except Exception as exc:  # noqa: BLE001 (any failure of a plugin's import is reported as its own)
        raise PluginError(f"{where(ep)}: {type(exc).__name__}: {exc}") from exc


def import_modules(group: str) -> list[str]:
    """Import the module of every entry point of `group` (each registers what it defines)."""
    for ep in points(group):
        load(ep)
    return [ep.module for ep in points(group)]
