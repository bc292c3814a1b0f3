"""A docs snippet: one results table as `docs/generated/<table>.md`, with its provenance.

The docs quote result figures only through these files, so a figure in the docs is the one the
last run wrote into `results/`, never typed by hand (docs/provenance.md, "Figures
in the docs"). The snippet holds nothing that changes between two runs that give the same
results (no date, host, job times or git commit): a rebuild that reproduces the committed figures
leaves the checkout clean, and one that does not shows as a diff of `docs/generated/`.
"""

from __future__ import annotations

from pathlib import Path

from lrworld.core import io

HEADER = ("<!-- written by rule docs_snippet (lrworld/docsgen/snippet.py) from {md}; do not edit by hand: "
          "the run rewrites it -->")


class StaleRecord(ValueError):
    """The table record does not hash the table files it sits beside."""


def _short(sha: str) -> str:
    return sha[:12]


def record_lines(record_path: str, record: dict, csv: str, md: str) -> list[str]:
    """A table that has a table record (the LRWorld tables): the record, checked against the files."""
    for kind, path in (("csv", csv), ("md", md)):
        if record["table"][kind]["sha256"] != io.sha256_file(path):
            raise StaleRecord(f"{record_path}: its {kind} sha256 is not that of {path} (rebuild the record)")
    lines = [f"- record: `{record_path}`: {len(record['cells'])} cells, each with its score file, the score's "
             "sha256 and the score's own record (the chain back to the raw files)",
             f"- config sha256 `{_short(record['config']['sha256'])}` (the config subset behind the table, in the record)",
             f"- lrworld {record['code']['lrworld_version']}"]
    return lines + [f"- trace a cell: `lrworld explain {csv} <row> <column>`; re-hash every chain: `lrworld verify`"]


def source_lines(rule: str, sources: list[str]) -> list[str]:
    """A table without a table record (the LLaRA and SRBench tracks): the files its rule read."""
    lines = [f"No table record for this track; rule `{rule}` built the table from these files:", "",
             "| file | sha256 |", "|---|---|"]
    return lines + [f"| `{p}` | `{_short(io.sha256_file(p))}` |" for p in sources]


def render(name: str, rule: str, md: str, csv: str, record: str | None = None, sources: list[str] = ()) -> str:
    """The snippet of table `name`: the table's Markdown as the run wrote it, then its provenance."""
    table = Path(md).read_text().rstrip("\n")
    prov = (record_lines(record, io.read_json(record), csv, md) if record
            else source_lines(rule, list(sources)))
    return "\n".join([HEADER.format(md=md), "",
                      f"Results table `{name}`: `{md}` (rule `{rule}`; `{csv}` sha256 "
                      f"`{_short(io.sha256_file(csv))}`), copied as the run wrote it.", "",
                      "<!-- table:start -->", table, "<!-- table:end -->", "",
                      f"**Provenance of `{name}`**", "", *prov, ""])
