"""JSON-lines reading with errors that name the file and the line, or counted skips.

Real dumps (Amazon Review 2018) have the odd truncated or non-JSON line; a researcher either wants
the run to stop at it (`on_bad_line: error`, the default) or to skip it and see how many were
skipped (`on_bad_line: skip`, counted in the ingest report).
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Iterator

from lrworld.data.contract import DataError


def open_text(path: Path, encoding: str = "utf-8"):
    if str(path).endswith(".gz"):
        return gzip.open(path, "rt", encoding=encoding, newline="")
    return open(path, encoding=encoding, newline="")


def read_records(path: str | Path, required: tuple[str, ...], on_bad_line: str, skipped: Counter
                 ) -> Iterator[tuple[int, dict]]:
    """Yield (line number, record) for each JSON object line that has the required keys."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: file not found")
    with open_text(path) as fh:
        lineno = 0
        while True:
            try:
                line = fh.readline()
            except UnicodeDecodeError as exc:
                raise DataError(f"{path}: line {lineno + 1}: not UTF-8 ({exc.reason})") from None
            if not line:
                break
            lineno += 1
            if not line.strip():
                continue
            problem = None
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                rec, problem = None, f"not valid JSON ({exc.msg} at column {exc.colno})"
            if problem is None and not isinstance(rec, dict):
                problem = "not a JSON object"
            if problem is None:
                missing = [k for k in required if k not in rec or rec[k] in (None, "")]
                if missing:
                    problem = f"missing {missing}"
            if problem is not None:
                if on_bad_line == "skip":
                    skipped[path.name] += 1
                    continue
                raise DataError(f"{path}: line {lineno}: {problem} (set on_bad_line: skip to count and skip such "
                                f"lines)")
            yield lineno, rec
