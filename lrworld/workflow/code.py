"""The code a rule runs, found from its script's imports.

A rule's script imports package modules, which import others; a change to any of them must re-run
the rule, and nothing else. The closure is read from the source with `ast` (never by importing),
transitively within the `lrworld` package: every `import`/`from ... import` anywhere in a module
(imports inside functions count, since they run when the function does), the `__init__.py` of
every package on the way (Python runs them), and every module of a package that is discovered:
`discover(__name__)` in the package's `__init__`, or `discover("lrworld.x")` anywhere
(lrworld.core.registry).
"""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

PACKAGE = "lrworld"
_DISCOVER = "discover"


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


# Keyed by mtime: every rule's closure shares the modules' scans (the plan computes ~40 closures
# over the same ~120 modules), and an edited module is scanned again.
@lru_cache(maxsize=None)
def _imports_of(root: Path, path: Path, mtime_ns: int) -> tuple[frozenset[str], frozenset[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
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
            if name == _DISCOVER and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    discovers.add(arg.value)
                elif isinstance(arg, ast.Name) and arg.id == "__name__" and path.name == "__init__.py":
                    discovers.add(here)
    return frozenset(out), frozenset(discovers)


class CodeIndex:
    """Closures and digests of one checkout: a plan asks for ~50 closures over the same ~150
    modules, so each module's edges (the files its imports lead to) are resolved once and each file
    is hashed once, both again when the file's size or mtime changes (an edited module is seen)."""

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()
        self._edges: dict[Path, tuple[tuple, list[Path]]] = {}
        self._sha: dict[Path, tuple[tuple, bytes]] = {}

    def _edges_of(self, path: Path) -> list[Path]:
        """The files one module leads to: its imports, the packages on their way, discovered modules."""
        st = path.stat()
        key = (st.st_mtime_ns, st.st_size)
        if path in self._edges and self._edges[path][0] == key:
            return self._edges[path][1]
        names, discovers = _imports_of(self.root, path, st.st_mtime_ns)
        out = []
        for pkg in discovers:
            init = module_path(self.root, pkg)
            if init is not None and init.name == "__init__.py":
                out += [p for p in init.parent.glob("*.py") if not p.name.startswith("_")]
        for name in names | discovers:
            parts = name.split(".")
            # the packages on the way run their __init__ too
            for i in range(1, len(parts) + 1):
                p = module_path(self.root, ".".join(parts[:i]))
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
            if path in seen or not path.is_file():
                continue
            seen.add(path)
            todo += self._edges_of(path)
        return sorted(seen)

    def digest(self, files: list[Path]) -> str:
        """sha256 over the files' paths (relative to root) and bytes: the rule's code identity."""
        h = hashlib.sha256()
        for f in files:
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
