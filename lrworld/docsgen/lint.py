"""Two checks on the project's own text, run by tests/docsgen/: no history outside CHANGELOG.md, and
no table of figures in the docs outside a generated block.

A generated block is text a program wrote, so it is exempt from both checks (its figures carry
their own date, load and command, and its provenance may name a commit):

- a whole file under `docs/generated/` (written by rule `docs_snippet`);
- the lines from `<!-- NAME:start ... -->` to `<!-- NAME:end -->` in any page (written by a
  benchmark's `--write-docs`, `benchmarks/docs_block.py`; a snippet's own `table` block).

History is how the project came to be: issue numbers, review rounds, branch names and comparisons
with an older commit. It belongs in CHANGELOG.md only; the rest of the text describes what is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

START = re.compile(r"<!--\s*([\w.-]+):start\b")

# Each pattern names one kind of history; kept narrow so that "round-trip", "rounding", a NeuMF
# "GMF branch" or a list marker such as `#4` pass.
HISTORY = {
    "issue number": re.compile(r"\b(?:issues?|PR|pull\s+request)\s*#?\d+\b|(?<![\w#&(`/:-])#\d{2,}\b(?![\w`])", re.I),
    "review round": re.compile(r"\bround\s+\d+\b|\btrust\s+round\b|\btrust-[a-f]\b", re.I),
    "branch": re.compile(r"\bthis\s+branch\b|\bbranch\s+[\w-]+-[a-z]\b|\bold\s+main\b", re.I),
    "commit comparison": re.compile(r"\b(?:main|commit|before|since|after)\s+[0-9a-f]{7,40}\b"),
    # then-and-now prose: a sentence opening "Before, ...", a "Before ... Now ..." pair, "no lon" + "ger"
    "then and now": re.compile(r"\bno\s+longer\b|(?:^|[.!?:]\s+)Before,\s|\bBefore\b[^.]{0,300}\.\s+Now\b", re.I),
}

# A figure: a number with two or more decimals, a percentage or ratio with decimals, a duration
# or a size. A config value or a message sits in backticks and is not a figure.
FIGURE = re.compile(r"(?<![\w.])(?:\d[\d,]*\.\d{2,}|\d+\.\d+\s?(?:%|x|×)|\d+(?:\.\d+)?\s?(?:s|ms|GB|MB|GiB|MiB|KB)(?![\w/]))")
CODE = re.compile(r"`[^`]*`")


def generated_lines(text: str) -> set[int]:
    """1-based numbers of the lines inside a generated block, markers included."""
    inside: set[int] = set()
    name = None
    for n, line in enumerate(text.splitlines(), 1):
        if name is None and (m := START.search(line)):
            name = m.group(1)
        if name is not None:
            inside.add(n)
            if f"<!-- {name}:end -->" in line:
                name = None
    return inside


def is_generated_file(path: Path, root: Path) -> bool:
    return path.relative_to(root).parts[:2] == ("docs", "generated")


def history(path: Path, root: Path) -> Iterator[str]:
    """`<file>:<line>: <kind>: <the line>` for every mention of history in one file; a mention may
    run across a line break ("issue" at the end of one line, its number on the next)."""
    if is_generated_file(path, root):
        return
    lines = path.read_text(errors="replace").splitlines()
    skip = generated_lines("\n".join(lines))
    text = "\n".join("" if n in skip else line for n, line in enumerate(lines, 1))
    for kind, pattern in HISTORY.items():
        for m in pattern.finditer(text):
            n = text.count("\n", 0, m.start()) + 1
            yield f"{path.relative_to(root)}:{n}: {kind} ({m.group(0)!r}): {lines[n - 1].strip()[:120]}"


def figure_rows(path: Path, root: Path) -> Iterator[str]:
    """`<file>:<line>: <figures>` for every Markdown table row outside a generated block that holds
    figures: a cell that is one figure (or a list of them), or two figures anywhere in the row."""
    if is_generated_file(path, root):
        return
    text = path.read_text()
    skip = generated_lines(text)
    for n, line in enumerate(text.splitlines(), 1):
        if n in skip or not line.lstrip().startswith("|"):
            continue
        cells = [CODE.sub("", c).strip() for c in line.strip().strip("|").split("|")]
        found = [f for c in cells for f in FIGURE.findall(c)]
        whole = any(FIGURE.search(c) and not re.sub(r"[\d.,±%x×/\s\[\]()~-]|\b(?:s|ms|GB|MB|GiB|MiB|KB)\b", "", c)
                    for c in cells)
        if whole or len(found) >= 2:
            yield f"{path.relative_to(root)}:{n}: {', '.join(found[:4])}: {line.strip()[:100]}"
