"""bench_plan's graphs: a dry-run listing turned into bare rules plans the same jobs, each input
edge to the same producer; a folder built from a listing plans nothing until one of its files goes."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_plan import build_folder, dry_run, shaped_snakefile, with_one_more_model  # noqa: E402

LISTING = """Building DAG of jobs...
rule make:
    input: data/raw.txt
    output: results/a.txt, results/b.txt
    log: logs/make.log
    jobid: 2
    wildcards: x=1

localrule make:
    input: data/raw.txt
    output: results/c.txt, results/d.txt
    log: logs/make2.log
    jobid: 3

rule use:
    input: results/a.txt, results/b.txt, results/d.txt
    output: results/u.json
    jobid: 1

localrule all:
    input: results/u.json, results/c.txt
    jobid: 0
"""


def test_the_shaped_graph_plans_the_listed_jobs_and_edges(tmp_path):
    raw = tmp_path / "raw.txt"  # a file no job makes keeps its path (the planning folder is made afresh)
    raw.write_text("x")
    floor = shaped_snakefile(tmp_path / "floor", LISTING.replace("data/raw.txt", str(raw)))
    listing = []
    jobs, _, _ = dry_run(floor, tmp_path / "work", None, [], listing=listing)
    assert jobs == 4
    out = listing[0]
    # the two `make` jobs are one rule of two outputs and a log; `use` reads 2 outputs of one and 1 of the other
    use = out.split("rule use_1:")[1].split("\n")[1]
    assert sorted(use.split("input: ")[1].split(", ")) == ["o/make_0/0/0", "o/make_0/0/1", "o/make_0/1/1"]
    assert out.count("rule make_0:") == 2 and f"input: {raw}" in out and "log: l/make_0/1/0" in out


def test_a_built_folder_plans_nothing_until_a_file_goes(tmp_path):
    raw = tmp_path / "raw.txt"
    raw.write_text("x")
    floor = shaped_snakefile(tmp_path / "floor", LISTING.replace("data/raw.txt", str(raw)))
    listing = []
    dry_run(floor, tmp_path / "work", None, [], listing=listing)
    # 3 jobs' outputs (5 files) and their 2 logs
    assert build_folder(floor, tmp_path / "built", None, listing[0]) == 7
    assert dry_run(floor, tmp_path / "built", None, [], fresh=False)[0] == 0
    (tmp_path / "built" / "o/use_1/0/0").unlink()  # `all` reads it: its job and `all` run again
    assert dry_run(floor, tmp_path / "built", None, [], fresh=False)[0] == 2
    assert with_one_more_model({"models": {"m00": {}, "m01": {}}})["models"]["m02"] == {"backend": "random", "seed": 2}
