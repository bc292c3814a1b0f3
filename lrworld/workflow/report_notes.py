"""The lines a Snakemake report caption adds to its static text (docs/report/*.rst): the short
measures (§, with the reason) and the sources behind each knowledge measure's golds (‡), read from
the question reports, and the validity controls' findings (¶, ∅), read from the dataset's audit.

The captions render from a rule's params; these params read the job's inputs, so Snakemake counts
them as derived from the input and never re-runs a job for them. They are read when the report is
made (`snakemake --report`), after the build; before it, when no report exists yet, there is nothing
to add."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lrworld.audit import validity
from lrworld.questions import witnesses
from lrworld.scoring.table import short_notes

# reStructuredText markup a reason may hold (`dropped_margin_` would be a link, `*` emphasis)
_RST = re.compile(r"([\\`*_|])")


def _reports(files) -> list[dict]:
    out = []
    for f in [files] if isinstance(files, str) else list(files or []):
        try:
            out.append(json.loads(Path(f).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue  # not built yet: the caption says what exists
    return out


def rst(line: str) -> str:
    return _RST.sub(r"\\\1", line)


def table_notes(report_files, audit_file=None, measure: str | None = None) -> list[str]:
    """§ and ‡ lines of a results table's caption, and with the dataset's audit its ¶ and ∅ lines
    (lrworld/audit/validity.py; a card's: its `measure`'s only), escaped for reStructuredText."""
    reports = _reports(report_files)
    short = {r["measure"]: r["short"]["reason"] for r in reports if (r.get("short") or {}).get("reason")}
    audit = next(iter(_reports(audit_file)), {}) if audit_file else {}
    found, empty = validity.found(audit), validity.unanswerable(audit)
    if measure is not None:
        found, empty = {m: v for m, v in found.items() if m == measure}, {m: v for m, v in empty.items() if m == measure}
    checked = validity.notes(found, empty)
    return [rst(x) for x in short_notes(short) + witnesses.notes(witnesses.from_reports(reports)) + checked]
