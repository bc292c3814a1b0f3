"""`--write-docs` for the benchmarks: a benchmark's figures go into a generated block of its docs
page, between two marker comments, with the date, the machine's load (`uptime`) and the command
that measured them, so a figure in the docs is never typed by hand.

    <!-- bench_plan:start (written by benchmarks/bench_plan.py --write-docs) -->
    ...
    <!-- bench_plan:end -->

A page without the block gets it appended; the text outside the markers is left as it is."""

from __future__ import annotations

import datetime
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load() -> str:
    """The load averages (1, 5, 15 min) from `uptime`, as it prints them."""
    out = subprocess.run(["uptime"], capture_output=True, text=True).stdout
    return out.rsplit("load average:", 1)[-1].strip() if "load average" in out else "unknown"


def command(argv: list[str] | None) -> str:
    return shlex.join(["python", Path(sys.argv[0]).resolve().relative_to(ROOT).as_posix()
                       if Path(sys.argv[0]).resolve().is_relative_to(ROOT) else sys.argv[0],
                       *(sys.argv[1:] if argv is None else argv)])


def block(name: str, body: str, cmd: str, load_before: str, load_after: str, script: str | None = None) -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<!-- {name}:start (written by benchmarks/{script or name}.py --write-docs; do not edit by hand) -->\n"
            f"Measured {stamp}, load average (1, 5, 15 min) {load_before} before and {load_after} after, "
            f"by `{cmd}`:\n\n{body.rstrip()}\n<!-- {name}:end -->")


def write(page: Path, name: str, body: str, cmd: str, load_before: str, script: str | None = None) -> None:
    """Replace (or append) the block `name` of `page` (`script`: the benchmark's file name when a
    benchmark writes several blocks, which `name` then tells apart)."""
    text = page.read_text()
    start, end = f"<!-- {name}:start", f"<!-- {name}:end -->"
    new = block(name, body, cmd, load_before, load(), script)
    if start in text:
        i = text.index(start)
        j = text.index(end, i) + len(end)
        text = text[:i] + new + text[j:]
    else:
        text = text.rstrip("\n") + "\n\n" + new + "\n"
    page.write_text(text)
    print(f"wrote the {name} block of {page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}")
