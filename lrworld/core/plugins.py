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

A folder of installed plugins (`pip install --target <folder> <package>`) named under config's
`plugins:` is put on the path of the plan and of every job it starts (`use_folders`, called by the
Snakefile before any registry loads), as lm-evaluation-harness's `--include_path` adds task folders.

Shortcut answerers are backends. A plugin that fails to load is named with its package in one
line. Entries are read once per process, sorted by name, so every job sees the same registry.

A plugin's modules are code like lrworld's own: the code closure of a rule (lrworld/workflow/code.py)
follows a registry's `points(group)` / `import_modules(group)` into the modules its entry points
name, found on the path without importing them (`installed`), so editing a plugin re-runs the
jobs that ran it, and a score's record names the plugin, its version and its files' digests.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
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


@dataclass(frozen=True)
class Plugin:
    """An installed distribution that declares lrworld entry points."""
    name: str  # the distribution's name (its METADATA's), as `pip` lists it
    version: str | None
    folder: Path  # the path entry its top-level modules are in
    tops: tuple[str, ...]  # its top-level packages or modules that entry points name


def _folder(top: str) -> Path | None:
    """The path entry holding top-level module `top`: found by the import system, not imported."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0]).resolve().parent
    return Path(spec.origin).resolve().parent if spec.origin else None


@cache
def installed() -> dict[str, Plugin]:
    """{top-level module name: its Plugin} of every entry point of every group (a module no finder
    locates is left out: loading it fails, naming it, where a registry loads it)."""
    dists: dict[tuple, set[str]] = {}
    for group in GROUPS:
        for ep in points(group):
            top = ep.module.split(".")[0]
            if top == __name__.split(".")[0]:  # an entry point into lrworld itself is lrworld's code
                continue
            folder = _folder(top)
            if folder is not None:
                key = (ep.dist.name if ep.dist is not None else top, ep.dist.version if ep.dist is not None else None,
                       folder)
                dists.setdefault(key, set()).add(top)
    return {top: Plugin(name, version, folder, tuple(sorted(tops)))
            for (name, version, folder), tops in dists.items() for top in tops}


def owner(module: str) -> Plugin | None:
    """The installed plugin a dotted module name belongs to (None: lrworld's own, or no plugin's)."""
    return installed().get(module.split(".")[0])


def plugin_of(path: Path) -> Plugin | None:
    """The installed plugin whose package holds the file `path` (absolute)."""
    for plugin in installed().values():
        if any(path.is_relative_to(plugin.folder / top) or path == plugin.folder / f"{top}.py" for top in plugin.tops):
            return plugin
    return None


def by_name(name: str) -> Plugin:
    for plugin in installed().values():
        if plugin.name == name:
            return plugin
    raise PluginError(f"plugin {name!r} is not installed (installed: "
                      f"{', '.join(sorted({p.name for p in installed().values()})) or 'none'})")


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


def use_folders(folders, key: str = "plugins") -> list[str]:
    """Put config's `plugins:` folders first on this process's path and on PYTHONPATH (which the
    jobs it starts inherit), before any registry reads its group; returns them, absolute. A
    folder that is not there is refused naming the key."""
    if folders is None:
        return []
    if not isinstance(folders, list) or not all(isinstance(f, str) and f for f in folders):
        raise PluginError(f"{key}: a list of folders (of installed lrworld plugins)")
    out = []
    for i, f in enumerate(folders):
        path = Path(os.path.expanduser(f)).resolve()
        if not path.is_dir():
            raise PluginError(f"{key}[{i}]: folder {f} not found (a folder of installed plugins: "
                              f"pip install --target <folder> <package>)")
        out.append(str(path))
    if points.cache_info().currsize and out:
        raise PluginError(f"{key}: the registries were read before the plugin folders were added")
    for path in reversed(out):
        if path not in sys.path:
            sys.path.insert(0, path)
    known = os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.environ.get("PYTHONPATH") else []
    os.environ["PYTHONPATH"] = os.pathsep.join([*[p for p in out if p not in known], *known])
    return out
