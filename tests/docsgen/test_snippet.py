"""lrworld/docsgen/snippet.py: a docs snippet is the results table as the run wrote it, naming its
provenance, with nothing that changes between two runs with the same results."""

import hashlib

import pytest

from lrworld.core import io
from lrworld.docsgen.snippet import StaleRecord, render

TABLE_MD = ("# d\n\n| model | attr_genre |\n|---|---:|\n| random | 0.3000 [0.18, 0.42] |\n\n"
            "Provenance of every cell: `results/provenance/d/table.json`.\n")
TABLE_CSV = "model,attr_genre\nrandom,0.3000\n"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture
def built(tmp_path, monkeypatch):
    """A table and its table record as results/ holds them, in a working directory of its own."""
    monkeypatch.chdir(tmp_path)
    io.write_text("results/tables/d.md", TABLE_MD)
    io.write_text("results/tables/d.csv", TABLE_CSV)
    record = {"kind": "table", "table": {"csv": {"path": "results/tables/d.csv", "sha256": sha(TABLE_CSV)},
                                         "md": {"path": "results/tables/d.md", "sha256": sha(TABLE_MD)}},
              "config": {"sha256": "c0ffee" * 10}, "code": {"lrworld_version": "9.9.9", "git": {"commit": "abc"}},
              "job": {"host": "here", "start": "2026-12-02T01:00:00Z"}, "cells": [{"row": "random"}, {"row": "b"}]}
    io.write_json("results/provenance/d/table.json", record)
    return record


def test_the_snippet_holds_the_table_as_written_and_names_its_record(built):
    text = render("d", "table", "results/tables/d.md", "results/tables/d.csv", record="results/provenance/d/table.json")
    table = text.split("<!-- table:start -->\n", 1)[1].split("\n<!-- table:end -->", 1)[0]
    assert table + "\n" == TABLE_MD
    assert f"`results/tables/d.csv` sha256 `{sha(TABLE_CSV)[:12]}`" in text
    assert "- record: `results/provenance/d/table.json`: 2 cells" in text
    assert "- config sha256 `c0ffeec0ffee`" in text and "- lrworld 9.9.9" in text
    assert "lrworld explain results/tables/d.csv <row> <column>" in text
    # what differs between two runs with equal results stays out (so a rebuild rewrites it byte for byte)
    assert "here" not in text and "2026" not in text and "abc" not in text


def test_a_record_that_does_not_hash_the_table_is_refused(built):
    io.write_text("results/tables/d.csv", TABLE_CSV.replace("0.3000", "0.3200"))
    with pytest.raises(StaleRecord, match=r"^results/provenance/d/table.json: its csv sha256 is not that of "
                                          r"results/tables/d.csv \(rebuild the record\)$"):
        render("d", "table", "results/tables/d.md", "results/tables/d.csv", record="results/provenance/d/table.json")


def test_a_track_table_names_the_files_its_rule_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    io.write_text("results/tables/llara.md", "| row | steam |\n|---|---|\n| random | 0.0489 |\n")
    io.write_text("results/tables/llara.csv", "row,steam\nrandom,0.0489\n")
    score = '{"hit_ratio_at_1_all": 0.0489}'
    io.write_text("results/llara/steam/scores/random.json", score)
    text = render("llara", "llara_table", "results/tables/llara.md", "results/tables/llara.csv",
                  sources=["results/llara/steam/scores/random.json"])
    assert "| random | 0.0489 |\n<!-- table:end -->" in text
    assert "rule `llara_table` built the table from these files:" in text
    assert f"| `results/llara/steam/scores/random.json` | `{sha(score)[:12]}` |" in text
