"""The files of a score's provenance chain, one small file per role (what
lrworld.provenance.record.score_chain reads): for its tests and benchmarks/bench_provenance.py."""

from __future__ import annotations

from pathlib import Path

ROLES = ("score", "score_job", "responses", "summary", "prompts", "template", "questions", "questions_report",
         "interactions", "items", "ingest_report")


def chain_files(folder: Path) -> dict[str, str]:
    """{role: a small file named after it} for every role of a score's chain."""
    inp = {}
    for r in ROLES:
        (folder / r).write_text(r)
        inp[r] = str(folder / r)
    return inp
