"""Named registries: a measure, backend, dataset format, metadata join or prompt variant is
declared once, by name, and the config schema, the wildcard constraints, the rules and the tables
read it from here (as lm-evaluation-harness's `@register_model` and Inspect's `@modelapi`).

A package whose modules register themselves calls `discover(__name__)` in its `__init__`, so a
new backend or format is one new file in that package. The code-closure walker
(`lrworld.workflow.code`) knows this call: importing such a package depends on all its modules.
"""

from __future__ import annotations

import importlib
import pkgutil
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
