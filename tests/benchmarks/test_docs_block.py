"""benchmarks/docs_block.py: a benchmark's `--write-docs` replaces its block of a page, stamped with
the date, the load and the command, and leaves the rest of the page as it was."""

import re

from benchmarks import docs_block


def test_the_block_is_appended_then_replaced_and_the_page_around_it_kept(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nhand text\n")
    docs_block.write(page, "bench_x", "| a |\n|---|\n| 1.5x |", "python benchmarks/bench_x.py --write-docs", "0.50, 0.40, 0.30")
    first = page.read_text()
    assert first.startswith("# Title\n\nhand text\n\n<!-- bench_x:start")
    assert "load average (1, 5, 15 min) 0.50, 0.40, 0.30 before" in first
    assert "by `python benchmarks/bench_x.py --write-docs`:\n\n| a |\n|---|\n| 1.5x |\n<!-- bench_x:end -->\n" in first
    assert re.search(r"Measured \d{4}-\d\d-\d\d \d\d:\d\d UTC", first)

    page.write_text(first + "\n## After\n")
    docs_block.write(page, "bench_x", "| a |\n|---|\n| 2.0x |", "cmd", "1.00, 1.00, 1.00")
    second = page.read_text()
    assert second.count("<!-- bench_x:start") == 1 and "1.5x" not in second and "| 2.0x |" in second
    assert second.startswith("# Title\n\nhand text\n\n") and second.endswith("<!-- bench_x:end -->\n\n## After\n")


def test_load_reads_uptime():
    assert re.fullmatch(r"[\d.]+,? [\d.]+,? [\d.]+", docs_block.load())


def test_a_benchmark_with_several_blocks_names_its_own_file(tmp_path):
    # bench_gpu writes bench_gpu_tiny, bench_openai_concurrency one block per mode: the header names the script
    page = tmp_path / "page.md"
    page.write_text("<!-- bench_gpu_tiny:start -->\n(not measured yet)\n<!-- bench_gpu_tiny:end -->\n")
    docs_block.write(page, "bench_gpu_tiny", "1.65x", "python benchmarks/bench_gpu.py --tiny", "1, 1, 1", "bench_gpu")
    text = page.read_text()
    assert text.startswith("<!-- bench_gpu_tiny:start (written by benchmarks/bench_gpu.py --write-docs;")
    assert "(not measured yet)" not in text and text.endswith("1.65x\n<!-- bench_gpu_tiny:end -->\n")
