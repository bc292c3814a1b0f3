"""benchmarks/bench_groundtruth.py --write-docs: the ratios first (each baseline over ours, one row
each, as measured side by side), then the whole run's figures."""

from benchmarks import bench_groundtruth as mod


def test_ratios_come_first_then_the_whole_run():
    text = mod.docs_text([("rule mining: dense / ours", "0.05 (1,250 interactions)", 2.6, 2.891)], "All five factors: 9 s")
    assert text.splitlines() == ["| baseline / ours | scale | ratio | ours (s) |", "|---|---|---:|---:|",
                                 "| rule mining: dense / ours | 0.05 (1,250 interactions) | 2.6x | 2.89 |", "",
                                 "All five factors: 9 s"]
    assert mod.docs_text([], "only the run") == "only the run"
