"""Every table of figures in README and docs/ sits in a generated block (lrworld/docsgen/lint.py;
docs/provenance.md, "Figures in the docs")."""

from pathlib import Path

import pytest

from lrworld.docsgen.lint import figure_rows, generated_lines

ROOT = Path(__file__).resolve().parents[2]


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_no_table_of_figures_outside_a_generated_block():
    rows = [row for page in pages() for row in figure_rows(page, ROOT)]
    assert rows == [], ("a table of figures outside a generated block; let a rule or a benchmark's "
                        "--write-docs write it (docs/provenance.md):\n" + "\n".join(rows))


def test_the_docs_hold_generated_blocks_the_check_skips():
    # the benchmark blocks in the docs are found, so the exemption is real, not vacuous
    slurm = (ROOT / "docs/slurm.md").read_text()
    assert "<!-- bench_plan:start" in slurm and len(generated_lines(slurm)) > 5
    assert (ROOT / "docs/generated/ml100k.md").exists()


TABLE = "| model | HR@1 | n |\n|---|---:|---:|\n| random | {value} | 50 |\n"


@pytest.mark.parametrize("value", ["0.3000", "0.30 ± 0.02", "12.5 s", "1.35x", "4.80 GiB", "22.5 %", "0.21, 0.23"])
def test_a_hand_typed_table_of_figures_is_caught(tmp_path, value):
    page = tmp_path / "p.md"
    page.write_text("Measured today:\n\n" + TABLE.format(value=value))
    (row,) = figure_rows(page, tmp_path)
    assert row.startswith("p.md:5: ")


@pytest.mark.parametrize("value", ["`0.3000`", "50", "0.5", "95% interval", "default 1.5x per poll",
                                   "chi-square with p < 0.001"])
def test_config_values_counts_and_prose_cells_pass(tmp_path, value):
    page = tmp_path / "p.md"
    page.write_text(TABLE.format(value=value))
    assert list(figure_rows(page, tmp_path)) == []


def test_the_same_table_inside_a_generated_block_passes(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("<!-- bench_x:start (written by benchmarks/bench_x.py --write-docs; do not edit by hand) -->\n"
                    "Measured 2026-12-03 08:00 UTC, load average 0.1 before and 0.2 after, by `python x.py`:\n\n"
                    + TABLE.format(value="0.3000") + "<!-- bench_x:end -->\n\n" + TABLE.format(value="0.3100"))
    assert [r.split(": ")[0] for r in figure_rows(page, tmp_path)] == ["p.md:11"]
    (tmp_path / "docs/generated").mkdir(parents=True)
    snippet = tmp_path / "docs/generated/t.md"
    snippet.write_text(TABLE.format(value="0.3000"))
    assert list(figure_rows(snippet, tmp_path)) == []
