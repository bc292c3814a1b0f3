"""The package's import graph as docs/extending.md quotes it: its modules and imports,
counted by grimp (the graph `lint-imports` checks). grimp is a test dependency
(import-linter's), imported only when the block is written."""

from __future__ import annotations

from pathlib import Path


def body(root: Path) -> str:
    import grimp

    graph = grimp.build_graph("lrworld")
    imports = sum(len(graph.find_modules_directly_imported_by(m)) for m in graph.modules)
    return f"The graph `lint-imports` checks (grimp): {len(graph.modules)} modules, {imports} imports."
