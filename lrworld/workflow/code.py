"""The code a rule runs, found from its script's imports.

A rule's script imports package modules, which import others; a change to any of them must re-run
the rule, and nothing else. The closure is read from the source with `ast` (never by importing),
transitively within the `lrworld` package: every `import`/`from ... import` anywhere in a module
(imports inside functions count, since they run when the function does), the `__init__.py` of
every package on the way (Python runs them), and every module of a package that is discovered:
`discover(__name__)` in the package's `__init__`, or `discover("lrworld.x")` anywhere, and every
module of a package whose declarations are read (`declarations("lrworld.x", ...)`: the job that
reads them resolves one of those modules) (lrworld.core.registry). A registry that reads an
installed plugin group (`plugins.points("lrworld.backends")`, `plugins.import_modules(...)`) leads
to the modules that group's entry points name, and on through their imports within the plugin's
own package, as it does through lrworld's (lrworld.core.plugins).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path

from lrworld.core import plugins

PACKAGE = "lrworld"
_DISCOVER = ("discover", "declarations")
_PLUGIN_LOADS = ("points", "import_modules")  # a registry reading an installed plugin group


def _file_of(base: Path, module: str) -> Path | None:
    path = base.joinpath(*module.split("."))
    for p in (path.with_suffix(".py"), path / "__init__.py"):
        if p.is_file():
            return p
    return None


def module_path(root: Path, module: str) -> Path | None:
    """The file of `module` (a dotted name under the package) below `root`, or of an installed
    plugin's module in the plugin's folder; None for any other module."""
    if module == PACKAGE or module.startswith(PACKAGE + "."):
        return _file_of(root, module)
    plugin = plugins.owner(module)
    return _file_of(plugin.folder, module) if plugin is not None else None


def _module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _base(root: Path, path: Path) -> Path | None:
    """The path entry a module file's dotted name is relative to (the checkout, or its plugin's
    folder); None for a script."""
    if path.is_relative_to(root / PACKAGE):
        return root
    plugin = plugins.plugin_of(path)
    return plugin.folder if plugin is not None else None


def _called(node: ast.Call, names) -> str | None:
    """The first argument of a call to one of `names` (as `f(...)` or `x.f(...)`), when a string literal."""
    f = node.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    if name in names and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def _scan(root: Path, path: Path, source: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Dotted module names the source imports (absolute, resolved), the packages it discovers, and
    the plugin groups it reads (whose entry points the walk resolves: what is installed changes
    without the module's bytes changing)."""
    tree = ast.parse(source, filename=str(path))
    base = _base(root, path)
    here = _module_name(base, path) if base is not None else ""
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out, discovers, groups = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if package else []
                mod = ".".join([*base, *([node.module] if node.module else [])])
            else:
                mod = node.module or ""
            out.add(mod)
            # `from pkg import name` may name a submodule
            out.update(f"{mod}.{a.name}" for a in node.names if a.name != "*")
        elif isinstance(node, ast.Call):
            discovers.update(_discovered(node, here if path.name == "__init__.py" else None))
            group = _called(node, _PLUGIN_LOADS)
            if group in plugins.GROUPS:
                groups.add(group)
    return frozenset(out), frozenset(discovers), frozenset(groups)


def _discovered(node: ast.Call, package: str | None) -> list[str]:
    """The package a `discover(...)`/`declarations(...)` call names (`__name__` in a package's
    `__init__`: that package)."""
    named = _called(node, _DISCOVER)
    if named is not None:
        return [named]
    f, args = node.func, node.args
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    if name in _DISCOVER and args and isinstance(args[0], ast.Name) and args[0].id == "__name__" and package:
        return [package]
    return []


class CodeIndex:
    """Closures and digests of one checkout: a plan asks for ~50 closures over the same ~150
    modules, so each module's edges (the files its imports lead to) are resolved once and each file
    is hashed once, both again when the file's size or mtime changes (an edited module is seen).

    A module's scan (its imports, by `ast`) is kept across plans in SCANS below the checkout, keyed
    by the module's sha256 (never by mtime alone: `cp -p` keeps it), like Python's own __pycache__:
    a plan parses only the modules that changed since the last one (~0.5 s for all of them on a
    quiet machine). A cache that cannot be read or written is ignored."""

    SCANS = "lrworld/__pycache__/lrworld-code-scans.json"

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()
        self._edges: dict[Path, tuple[tuple, list[Path]]] = {}
        self._sha: dict[Path, tuple[tuple, bytes]] = {}
        self._scans: dict[str, dict] | None = None
        self._paths: dict[str, Path | None] = {}  # module name -> its file (module files stay put in a plan)
        self._keys: dict[Path, tuple] = {}  # (mtime, size) of the files the last closure walked
        self._new_scans = False

    def _scans_file(self) -> Path:
        return self.root / self.SCANS

    def _load_scans(self) -> dict[str, dict]:
        if self._scans is None:
            try:
                self._scans = json.loads(self._scans_file().read_text(encoding="utf-8"))
                if not isinstance(self._scans, dict):
                    self._scans = {}
            except (OSError, ValueError):
                self._scans = {}
        return self._scans

    def _save_scans(self) -> None:
        """Atomically (a cluster job re-plans beside others), and only when a module was scanned."""
        if not self._new_scans:
            return
        self._new_scans = False
        target = self._scans_file()
        # a plugin's modules are kept by absolute path: forget those gone, or the file only grows
        self._scans = {rel: v for rel, v in self._scans.items() if not Path(rel).is_absolute() or Path(rel).exists()}
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".code-scans-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self._scans, fh, sort_keys=True)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except OSError:
            pass

    def _imports(self, path: Path, key: tuple) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        """A module's scan: from SCANS when its bytes are the ones scanned there; its sha256 is
        kept for the digest too (the file is read once)."""
        data = path.read_bytes()
        sha = hashlib.sha256(data)
        self._sha[path] = (key, sha.digest())
        rel = path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)
        scans = self._load_scans()
        hit = scans.get(rel)
        if isinstance(hit, dict) and hit.get("sha256") == sha.hexdigest() and "groups" in hit:
            return frozenset(hit["imports"]), frozenset(hit["discovers"]), frozenset(hit["groups"])
        names, discovers, groups = _scan(self.root, path, data.decode("utf-8"))
        scans[rel] = {"sha256": sha.hexdigest(), "imports": sorted(names), "discovers": sorted(discovers),
                      "groups": sorted(groups)}
        self._new_scans = True
        return names, discovers, groups

    def _module_path(self, module: str) -> Path | None:
        if module not in self._paths:
            self._paths[module] = module_path(self.root, module)
        return self._paths[module]

    def _edges_of(self, path: Path) -> list[Path] | None:
        """The files one module leads to: its imports, the packages on their way, discovered
        modules (None: no such file)."""
        try:
            st = path.stat()
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        key = self._keys[path] = (st.st_mtime_ns, st.st_size)
        if path in self._edges and self._edges[path][0] == key:
            return self._edges[path][1]
        names, discovers, groups = self._imports(path, key)
        names = names | {ep.module for group in groups for ep in plugins.points(group)}
        out = []
        for pkg in discovers:
            init = self._module_path(pkg)
            if init is not None and init.name == "__init__.py":
                out += [p for p in init.parent.glob("*.py") if not p.name.startswith("_")]
        for name in names | discovers:
            parts = name.split(".")
            # the packages on the way run their __init__ too
            for i in range(1, len(parts) + 1):
                p = self._module_path(".".join(parts[:i]))
                if p is not None:
                    out.append(p)
        self._edges[path] = (key, out)
        return out

    def closure(self, *entry_points: str | Path) -> list[Path]:
        """Every package file the entry points (scripts, or modules) run, sorted; entry points included."""
        # module paths are below the resolved root; only the entry points need resolving
        todo = [(Path(p) if Path(p).is_absolute() else self.root / p).resolve() for p in entry_points]
        seen: set[Path] = set()
        while todo:
            path = todo.pop()
            if path in seen:
                continue
            edges = self._edges_of(path)
            if edges is not None:
                seen.add(path)
                todo += edges
        self._save_scans()
        return sorted(seen)

    def name(self, path: Path) -> str:
        """A closure file's name: relative to the checkout, or to its plugin's folder (a plugin's
        `my_package/backend.py`), so a moved checkout or plugin folder changes no digest."""
        plugin = plugins.plugin_of(path)  # first: a plugin folder may sit in the checkout (plugins/)
        if plugin is not None:
            return path.relative_to(plugin.folder).as_posix()
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)

    def digest(self, files: list[Path]) -> str:
        """sha256 over the files' names (`name`) and bytes: the rule's code identity. A file the
        last closure walked is not stat'ed again."""
        h = hashlib.sha256()
        for f in files:
            key = self._keys.pop(f, None)
            if key is None:
                st = f.stat()
                key = (st.st_mtime_ns, st.st_size)
            if f not in self._sha or self._sha[f][0] != key:
                self._sha[f] = (key, hashlib.sha256(f.read_bytes()).digest())
            h.update(self.name(f).encode() + b"\0")
            h.update(self._sha[f][1])
        return h.hexdigest()


def closure(root: str | Path, *entry_points: str | Path) -> list[Path]:
    """Every package file the entry points (scripts, or modules) run, sorted; entry points included."""
    return CodeIndex(root).closure(*entry_points)


def digest(root: str | Path, files: list[Path]) -> str:
    """sha256 over the files' paths (relative to root) and bytes: the rule's code identity."""
    return CodeIndex(root).digest(files)
