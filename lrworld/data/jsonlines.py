"""Record-per-line reading (JSON lines, or Python dict literals for Amazon 2014 metadata) with
errors that name the file and the line, or counted skips.

Real dumps (Amazon Review 2018) have the odd truncated or non-JSON line; a researcher either wants
the run to stop at it (`on_bad_line: error`, the default) or to skip it and see how many were
skipped (`on_bad_line: skip`, counted in the ingest report).
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

from lrworld.data.contract import DataError
from lrworld.data.textio import encoding_error, open_text


# A whole file in another format is not a bad line to skip: it stops the run whatever on_bad_line says.
WRONG_FORMAT = "a Python dict literal, not JSON: Amazon 2014 metadata (set format: amazon-2014)"


def parse_json(line: str):
    try:
        return json.loads(line), None
    except json.JSONDecodeError as exc:
        if line.lstrip().startswith("{'"):
            return None, WRONG_FORMAT
        return None, f"not valid JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})"


def parse_literal(line: str):
    """One Python literal (the 2014 Amazon metadata dump): `ast.literal_eval` evaluates literals
    only, never code, so a hostile line cannot run anything."""
    try:
        return ast.literal_eval(line.strip()), None
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        try:  # some lines of the 2014 dumps are plain JSON (true/false/null)
            return json.loads(line), None
        except json.JSONDecodeError:
            return None, f"not a Python literal ({type(exc).__name__})"


def _problem(rec, problem, required) -> str | None:
    if problem is None and not isinstance(rec, dict):
        problem = "not an object"
    if problem is None:
        missing = [k for k in required if k not in rec or rec[k] in (None, "")]
        if missing:
            problem = f"missing {missing}"
    return problem


def _lines(path: Path, fh, encoding: str):
    """(line number, line) of a text stream, a decoding failure named by its line."""
    lineno = 0
    while True:
        try:
            line = fh.readline()
        except UnicodeError as exc:
            raise encoding_error(path, encoding, exc, lineno + 1) from None
        if not line:
            return
        lineno += 1
        yield lineno, line


def read_records(path: str | Path, required: tuple[str, ...], on_bad_line: str, skipped: Counter,
                 parse: Callable[[str], tuple] = parse_json, encoding: str = "utf-8") -> Iterator[tuple[int, dict]]:
    """Yield (line number, record) for each object line that has the required keys; a file that is
    one JSON array yields (position in the array, record) for each of its objects."""
    path = Path(path)
    with open_text(path, encoding) as fh:
        first = True
        lines = _lines(path, fh, encoding)
        for lineno, line in lines:
            if not line.strip():
                continue
            if first and line.lstrip().startswith("["):
                # one JSON array of records, not a record per line: each line would be "not valid
                # JSON" and `on_bad_line: skip` would skip every record
                text = line + "".join(rest for _, rest in lines)
                yield from _array_records(path, text, required, on_bad_line, skipped)
                return
            first = False
            rec, problem = parse(line)
            problem = _problem(rec, problem, required)
            if problem is not None:
                if on_bad_line == "skip" and problem != WRONG_FORMAT:
                    skipped[path.name] += 1
                    continue
                # skipping cannot help a file in another format: no hint to skip then
                hint = "" if problem == WRONG_FORMAT else " (set on_bad_line: skip to count and skip such lines)"
                raise DataError(f"{path}: line {lineno}: {problem}{hint}")
            yield lineno, rec


def _array_records(path: Path, text: str, required, on_bad_line: str, skipped: Counter):
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: one JSON array (the file starts with '['), not a record per line, and not "
                        f"valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, list):
        raise DataError(f"{path}: starts with '[' but is not one JSON array of records")
    for n, rec in enumerate(data, 1):
        problem = _problem(rec, None, required)
        if problem is not None:
            if on_bad_line == "skip":
                skipped[path.name] += 1
                continue
            raise DataError(f"{path}: record {n} of the JSON array: {problem} (set on_bad_line: skip to count "
                            "and skip such records)")
        yield n, rec
