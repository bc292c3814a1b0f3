"""benchmarks/bench_provenance.py --write-docs: the ratio first, then both timings, in the page's
bench_provenance block; the digest store hashes the raw file once, so it is the faster of the two."""

import re

from benchmarks import bench_provenance as mod

def test_write_docs_fills_the_block_with_the_ratio_first(tmp_path, monkeypatch, capsys):
    page = tmp_path / "provenance.md"
    page.write_text("intro\n<!-- bench_provenance:start -->\n(not measured yet)\n<!-- bench_provenance:end -->\nafter\n")
    monkeypatch.setattr(mod, "DOCS", page)
    assert mod.main(["--raw-mb", "8", "--jobs", "2", "--write-docs"]) == 0
    text = page.read_text()
    assert text.startswith("intro\n<!-- bench_provenance:start (written by benchmarks/bench_provenance.py")
    assert text.endswith("<!-- bench_provenance:end -->\nafter\n") and "(not measured yet)" not in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[0] == "| hashing | ratio | s | s a record |"
    ratio = float(re.fullmatch(r"\| every file for every record / digest store \| ([\d.]+)x \| \| \|", rows[1]).group(1))
    every, stored = (float(r.split("|")[3]) for r in rows[2:4])
    assert "2 jobs x 4 variants = 8 records over one 8 MB raw file" in text
    assert ratio > 1 and every > stored
    assert "ratio:" in capsys.readouterr().out
