"""Named registries: a measure, backend, dataset format, metadata join or prompt variant is
declared once, by name, and the config schema, the wildcard constraints, the rules and the tables
read it from here (as lm-evaluation-harness's `@register_model` and Inspect's `@modelapi`).

A package whose modules register themselves calls `discover(__name__)` in its `__init__`, so a
new backend or format is one new file in that package. The code-closure walker
(`lrworld.workflow.code`) knows this call: importing such a package depends on all its modules.

An entry whose code is heavy names it as a `"module:attr"` string (as lm-evaluation-harness and
Inspect name their entry points) and `resolve` imports it only when a job calls it; a package
whose modules each declare one entry as a literal (`declarations`) is read with `ast`, never
imported, so planning cannot load what those modules import.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
from pathlib import Path
from typing import Callable, Generic, Iterator, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str):
        self.kind = kind
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T) -> T:
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._entries[name] = entry
        return entry

    def decorator(self, name: str, make: Callable[[object], T]) -> Callable:
        """`@registry.decorator(name, make)` registers `make(obj)` and returns obj unchanged."""
        def wrap(obj):
            self.add(name, make(obj))
            return obj
        return wrap

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(f"unknown {self.kind} {name!r}; known: {self.names()}") from None

    def names(self) -> list[str]:
        return sorted(self._entries)

    def items(self) -> list[tuple[str, T]]:
        return sorted(self._entries.items())

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._entries)


def discover(package: str) -> list[str]:
    """Import every module of `package` (each registers what it defines); returns their names."""
    pkg = importlib.import_module(package)
    names = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")
            names.append(info.name)
    return names


def resolve(ref: str):
    """The object a `"package.module:attr"` reference names, imported now."""
    module, sep, attr = ref.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"{ref!r} is not a 'module:attr' reference")
    obj = importlib.import_module(module)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"{ref!r}: module {module!r} has no {attr!r}") from None
    return obj


def ref_module(ref: str) -> str:
    """The module part of a `"module:attr"` reference."""
    return ref.partition(":")[0]


def declarations(package: str, var: str) -> dict[str, dict]:
    """{module name: its top-level `var = {...}` literal} for the modules of `package` that have
    one, read with `ast` (the modules are not imported); a `"make"` value naming an attribute of
    the module becomes a `"module:attr"` reference."""
    spec = importlib.util.find_spec(package)
    out = {}
    for folder in spec.submodule_search_locations or []:
        for path in sorted(Path(folder).glob("*.py")):
            if not path.name.startswith("_") and (value := _literal(path, var, f"{package}.{path.stem}")) is not None:
                out[f"{package}.{path.stem}"] = value
    return out


def declaration(module: str, var: str) -> dict | None:
    """One module's top-level `var` literal, read with `ast` as `declarations` reads a package's
    (an installed plugin's module: its package's `__init__` is imported to find it, the module not)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise ValueError(f"module {module!r} not found (or not a .py file)")
    return _literal(Path(spec.origin), var, module)


def _literal(path: Path, var: str, module: str) -> dict | None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == var):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                raise ValueError(f"{path}: {var} must be a literal (it is read without importing "
                                 f"the module)") from None
            if isinstance(value, dict) and isinstance(value.get("make"), str) and ":" not in value["make"]:
                value["make"] = f"{module}:{value['make']}"
            return value
    return None
