"""The code a rule runs, found from its script's imports.

A rule's script imports package modules, which import others; a change to any of them must re-run
the rule, and nothing else. The closure is read from the source with `ast` (never by importing),
transitively within the `lrworld` package: every `import`/`from ... import` anywhere in a module
(imports inside functions count, since they run when the function does), the `__init__.py` of
every package on the way (Python runs them), and every module of a package that is discovered:
`discover(__name__)` in the package's `__init__`, or `discover("lrworld.x")` anywhere, and every
module of a package whose declarations are read (`declarations("lrworld.x", ...)`: the job that
reads them resolves one of those modules) (lrworld.core.registry).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path

PACKAGE = "lrworld"
_DISCOVER = ("discover", "declarations")


def module_path(root: Path, module: str) -> Path | None:
    """The file of `module` (a dotted name under the package) below `root`, or None."""
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        return None
    base = root.joinpath(*module.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


def _module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _scan(root: Path, path: Path, source: str) -> tuple[frozenset[str], frozenset[str]]:
    """Dotted module names the source imports (absolute, resolved), and the packages it discovers."""
    tree = ast.parse(source, filename=str(path))
    here = _module_name(root, path) if path.is_relative_to(root / PACKAGE) else ""
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out, discovers = set(), set()
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
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in _DISCOVER and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    discovers.add(arg.value)
                elif isinstance(arg, ast.Name) and arg.id == "__name__" and path.name == "__init__.py":
                    discovers.add(here)
    return frozenset(out), frozenset(discovers)


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
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".code-scans-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self._scans, fh, sort_keys=True)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except OSError:
            pass

    def _imports(self, path: Path, key: tuple) -> tuple[frozenset[str], frozenset[str]]:
        """A module's scan: from SCANS when its bytes are the ones scanned there; its sha256 is
        kept for the digest too (the file is read once)."""
        data = path.read_bytes()
        sha = hashlib.sha256(data)
        self._sha[path] = (key, sha.digest())
        rel = path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)
        scans = self._load_scans()
        hit = scans.get(rel)
        if isinstance(hit, dict) and hit.get("sha256") == sha.hexdigest():
            return frozenset(hit["imports"]), frozenset(hit["discovers"])
        names, discovers = _scan(self.root, path, data.decode("utf-8"))
        scans[rel] = {"sha256": sha.hexdigest(), "imports": sorted(names), "discovers": sorted(discovers)}
        self._new_scans = True
        return names, discovers

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
        names, discovers = self._imports(path, key)
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

    def digest(self, files: list[Path]) -> str:
        """sha256 over the files' paths (relative to root) and bytes: the rule's code identity. A
        file the last closure walked is not stat'ed again."""
        h = hashlib.sha256()
        for f in files:
            key = self._keys.pop(f, None)
            if key is None:
                st = f.stat()
                key = (st.st_mtime_ns, st.st_size)
            if f not in self._sha or self._sha[f][0] != key:
                self._sha[f] = (key, hashlib.sha256(f.read_bytes()).digest())
            h.update(str(f.relative_to(self.root)).encode() + b"\0")
            h.update(self._sha[f][1])
        return h.hexdigest()


def closure(root: str | Path, *entry_points: str | Path) -> list[Path]:
    """Every package file the entry points (scripts, or modules) run, sorted; entry points included."""
    return CodeIndex(root).closure(*entry_points)


def digest(root: str | Path, files: list[Path]) -> str:
    """sha256 over the files' paths (relative to root) and bytes: the rule's code identity."""
    return CodeIndex(root).digest(files)
