"""Docs blocks generated from the code: a count or list a page quotes (the import graph's size, a
registry's entries) sits between two marker comments and is written by one command,

    python -m lrworld.docsgen.blocks        (or `make docs`)

never typed by hand. `tests/docsgen/test_blocks.py` regenerates every block in memory and fails
when a page's copy differs, naming the command; a change that moves a figure (a new module, a new
registry entry) then needs only that command, not an edit of a test.

`BLOCKS` maps a block's name to its page and to the function that writes its body, named as
`"module:attr"` so that a generator's own imports (grimp for the import graph) load only when it
runs."""

from __future__ import annotations

import sys
from pathlib import Path

from lrworld.core.registry import resolve

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "python -m lrworld.docsgen.blocks"

# name -> (page relative to the checkout, "module:attr" of a function (root: Path) -> body text)
BLOCKS: dict[str, tuple[str, str]] = {
    "import_graph": ("docs/extending.md", "lrworld.docsgen.import_graph:body"),
    "paper_tokens": ("docs/paper.md", "lrworld.docsgen.paper_tokens:body"),
}


def markers(name: str) -> tuple[str, str]:
    return (f"<!-- {name}:start (written by `{COMMAND}`; do not edit by hand) -->", f"<!-- {name}:end -->")


def render(name: str, root: Path = ROOT) -> str:
    """The block `name` as it should stand in its page, markers included."""
    start, end = markers(name)
    body = resolve(BLOCKS[name][1])(root).rstrip("\n")
    return f"{start}\n{body}\n{end}"


def current(text: str, name: str) -> str | None:
    """The block `name` as it stands in `text` (None: the page has no such block)."""
    head, end = f"<!-- {name}:start", f"<!-- {name}:end -->"
    if head not in text:
        return None
    i = text.index(head)
    return text[i:text.index(end, i) + len(end)]


def stale(root: Path = ROOT) -> list[str]:
    """The blocks whose page copy is not what the code writes now: `page: name`, one each."""
    out = []
    for name, (page, _) in sorted(BLOCKS.items()):
        if current((root / page).read_text(encoding="utf-8"), name) != render(name, root):
            out.append(f"{page}: {name}")
    return out


def write(root: Path = ROOT) -> list[str]:
    """Rewrite every block in place (a page without its block gets it appended); the ones changed."""
    changed = []
    for name, (page, _) in sorted(BLOCKS.items()):
        path = root / page
        text = path.read_text(encoding="utf-8")
        new, old = render(name, root), current(text, name)
        if old == new:
            continue
        text = text.replace(old, new) if old is not None else text.rstrip("\n") + "\n\n" + new + "\n"
        path.write_text(text, encoding="utf-8")
        changed.append(f"{page}: {name}")
    return changed


def main() -> int:
    for line in write():
        print(f"wrote {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
