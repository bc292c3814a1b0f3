"""How long `snakemake -n` takes to plan the paper-scale config (3 datasets x 31 measures x 20
models x 4 variants), measured against the graph's own shape, side by side in one run.

    python benchmarks/bench_plan.py                    # the three figures, best of 1
    python benchmarks/bench_plan.py --repeat 3 --write-docs   # into docs/slurm.md
    python benchmarks/bench_plan.py --cprofile 25      # and where the plan spends its time

Three figures, each against its goal:
- the workflow's overhead: this checkout's plan over the same graph with bare rules (the same
  jobs, inputs, outputs, logs and edges, read from this checkout's dry-run listing; no params,
  conda, config, scripts or imports), planned alternately in the same rounds so a machine that
  slows down slows both (goal: at most 1.3x);
- the absolute plan of the paper-scale config from an empty folder (goal: under 5 s on a quiet
  machine);
- the incremental plan: one model added to a built paper-scale folder (every file the plan lists
  present, none older than its inputs), what a user waits for before the new model's jobs run
  (goal: under 5 s).
A graph of trivial jobs of the same count is planned in the same rounds: what Snakemake itself
costs on this machine at that moment. The datasets are generated fixtures (Amazon 2018 and two
Netflix Prize folders in their published formats, tests/support), so nothing but dry runs is run.
Each figure is the best of --repeat rounds; CPU is the user + system time of the snakemake process.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import docs_block  # noqa: E402
from lrworld.questions import measures  # noqa: E402
from tests.support.fixtures_amazon import write_amazon_2018  # noqa: E402
from tests.support.fixtures_netflix import write_netflix  # noqa: E402

VARIANTS = ["zero_shot", "cot", "shuffle1", "kshot"]  # noisy: refused on mem_item_item
N_MODELS = 20
DOCS = ROOT / "docs" / "slurm.md"


def write_config(out: Path) -> dict:
    """The paper-scale config over generated data: Amazon (product, 11 measures) and two Netflix
    folders (movie, 10 each): 31 (dataset, measure) pairs."""
    write_amazon_2018(out / "amazon", n_users=60, n_items=80, seed=0)
    nf = {name: write_netflix(out / name, n_users=150, seed=seed, extra_movies=60)
          for name, seed in (("netflix", 0), ("netflix2", 1))}
    ids = {d: measures.measure_ids(d) for d in ("product", "movie")}
    datasets = {"amazon": {"domain": "product", "format": "amazon-2018", "prefix": "Home_and_Kitchen",
                           "source": {"path": str(out / "amazon")}, "measures": ids["product"]}}
    for name, truth in nf.items():
        datasets[name] = {"domain": "movie", "format": "netflix", "parts": [1, 2], "source": {"path": str(out / name)},
                          "metadata": {"netflix_metadata": str(truth["metadata"])}, "measures": ids["movie"]}
    return {"seed": 1, "cache_dir": str(out / "cache"), "questions": {"history_length": 5, "per_measure": 20},
            "variants": VARIANTS, "datasets": datasets, "captioner": {"backend": "llava"},
            "models": {f"m{i:02d}": {"backend": "random", "seed": i} for i in range(N_MODELS)}}


def trivial_snakefile(dest: Path, n_jobs: int) -> Path:
    """`rule all` over n_jobs - 1 outputs of one shell rule."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "Snakefile").write_text(
        f"rule all:\n    input: expand('out/{{i}}.txt', i=range({n_jobs - 1}))\n\n"
        "rule job:\n    output: 'out/{i}.txt'\n    shell: 'touch {output}'\n")
    return dest


def shaped_snakefile(dest: Path, listing: str) -> Path:
    """The same graph as a dry-run listing, stripped to its shape: one rule per rule of the listing
    (a single {id} wildcard), each job with the listed number of outputs and logs and its listed
    inputs (each edge to the same producer job, by one input function), `touch` for a body; no
    params, conda, config, imports or code digests. What Snakemake alone costs for the files and
    edges the workflow declares: the workflow's own cost is the rest."""
    jobs = []  # (rule, inputs, outputs, logs)
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", listing):
        m = re.match(r"(?:local)?rule (\w+):\n", block)
        if not m:
            continue
        field = {k: v.split(", ") for k, v in re.findall(r"^    (input|output|log): (.*)$", block, re.M)}
        jobs.append((m.group(1), field.get("input", []), field.get("output", []), field.get("log", [])))
    kinds: dict[tuple, str] = {}  # (rule, outputs, logs) -> the floor's rule
    producer: dict[str, str] = {}
    placed = []
    for rule, _, outputs, logs in jobs:
        kind = kinds.setdefault((rule, len(outputs), len(logs)), f"{rule}_{len(kinds)}")
        jid = sum(1 for k, _ in placed if k == kind)
        placed.append((kind, jid))
        for k, f in enumerate(outputs):
            producer[f] = f"o/{kind}/{jid}/{k}"
    # inputs no job makes (the data) keep their paths: they exist
    table: dict[str, dict] = {}
    for (kind, jid), (_, inputs, _, _) in zip(placed, jobs):
        table.setdefault(kind, {})[str(jid)] = [producer.get(f, f) for f in inputs]
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "jobs.json").write_text(json.dumps(table))
    lines = ["import json", "", f"J = json.load(open({str(dest / 'jobs.json')!r}))", ""]
    targets = None
    for (rule, n_out, n_log), kind in kinds.items():
        if n_out == 0:  # the target rule
            targets = kind
            lines += [f"rule {kind}:", f"    input: J[{kind!r}]['0']", "    default_target: True", ""]
            continue
        lines += [f"rule {kind}:", f"    input: lambda wc: J[{kind!r}][wc.id]",
                  f"    output: {[f'o/{kind}/{{id}}/{k}' for k in range(n_out)]}"]
        if n_log:
            lines.append(f"    log: {[f'l/{kind}/{{id}}/{k}' for k in range(n_log)]}")
        lines += [f"    wildcard_constraints: id=r'\\d+'", "    shell: 'touch {output}'", ""]
    if targets is None:
        sys.exit("bench_plan: the listing has no target job")
    (dest / "Snakefile").write_text("\n".join(lines))
    return dest


def dry_run(snakefile_dir: Path, workdir: Path, config: dict | None, extra: list[str],
            cprofile: Path | None = None, listing: list | None = None, fresh: bool = True) -> tuple[int, float, float]:
    """(jobs, wall seconds, CPU seconds) of one `snakemake -n` in a fresh working directory (or in
    `workdir` as it is); its listing appended to `listing` if given."""
    if fresh and workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    prof = ["-m", "cProfile", "-o", str(cprofile)] if cprofile else []
    cmd = [sys.executable, *prof, "-m", "snakemake", "-s", str(snakefile_dir / "Snakefile"), "-d", str(workdir),
           "-n", "--cores", "1", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"bench_plan: {' '.join(cmd)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    if listing is not None:
        listing.append(proc.stdout)
    total = re.search(r"^total\s+(\d+)$", proc.stdout, re.M)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(total.group(1)) if total else 0, wall, cpu


def best(runs: list[tuple[int, float, float]]) -> tuple[int, float, float]:
    return min(runs, key=lambda r: r[1])


def listed_files(listing: str) -> list[str]:
    """Every output and log a dry-run listing names."""
    out = []
    for files in re.findall(r"^    (?:output|log): (.*)$", listing, re.M):
        out += files.split(", ")
    return out


def build_folder(snakefile_dir: Path, workdir: Path, config: dict | None, listing: str) -> int:
    """A built folder without running a job: every file the plan lists, then `snakemake --touch
    --forceall`, which marks every job done as a run would (its metadata: params, inputs, code),
    so a changed config re-runs what it changes. Returns the number of files."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    if config is not None:
        (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    files = listed_files(listing)
    for f in files:
        path = Path(f) if Path(f).is_absolute() else workdir / f
        path.parent.mkdir(parents=True, exist_ok=True)
        # the plan reads an answer summary (its reply digests are the score jobs' params): a stand-in
        # summary must be JSON
        path.write_text("{}") if f.startswith("results/answers/") and f.endswith(".json") else path.touch()
    cmd = [sys.executable, "-m", "snakemake", "-s", str(snakefile_dir / "Snakefile"), "-d", str(workdir),
           "--touch", "--forceall", "--cores", "1", "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench_plan: --touch in {workdir} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return len(files)


def with_one_more_model(config: dict) -> dict:
    models = dict(config["models"])
    models[f"m{len(models):02d}"] = {"backend": "random", "seed": len(models)}
    return {**config, "models": models}


def report(rows: dict, ratios: list[float], repeat: int, built_jobs: int) -> str:
    """The three figures against their goals, then the table; rounded only here, in text."""
    j1, w1, c1 = rows["this checkout"]
    _, ws, cs = rows["same graph, bare rules"]
    ji, wi, ci = rows["one model added to a built folder"]
    _, wt, _ = rows[f"trivial jobs ({j1:,})"]
    met = lambda ok: "met" if ok else "not met"  # noqa: E731
    lines = [f"- the workflow's overhead, this checkout / the same graph with bare rules: **{w1 / ws:.2f}x** wall, "
             f"{c1 / cs:.2f}x CPU (goal: at most 1.3x, {met(w1 / ws <= 1.3)}); round by round "
             f"{min(ratios):.2f}-{max(ratios):.2f}x",
             f"- the paper-scale plan: {j1:,} jobs in **{w1:.1f} s** (goal on a quiet machine: under 5 s, "
             f"{met(w1 < 5)}); the trivial graph of the same job count took {wt:.1f} s",
             f"- one model added to a built paper-scale folder: {ji:,} jobs planned in **{wi:.1f} s** "
             f"(goal: under 5 s, {met(wi < 5)}); the built folder itself plans {built_jobs} jobs",
             "",
             f"`snakemake -n` of 3 datasets x 31 measures x {N_MODELS} models x {len(VARIANTS)} variants "
             f"(best of {repeat}):",
             "",
             "| plan | jobs | wall s | CPU s | CPU ms/job |",
             "|---|---:|---:|---:|---:|"]
    for name, (jobs, wall, cpu) in rows.items():
        lines.append(f"| {name} | {jobs:,} | {wall:.2f} | {cpu:.2f} | {1000 * cpu / max(jobs, 1):.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=1, help="rounds; the fastest of each plan is kept")
    ap.add_argument("--cprofile", type=int, default=0, metavar="N",
                    help="also profile this checkout's dry run and print its N costliest functions")
    ap.add_argument("--keep", type=Path, help="plan in this folder and keep it (default: a temporary one)")
    ap.add_argument("--write-docs", action="store_true",
                    help=f"write the figures into the bench_plan block of {DOCS.relative_to(ROOT)}")
    ap.add_argument("snakemake_args", nargs="*", help="passed to snakemake after --, e.g. -- --profile profiles/slurm")
    args = ap.parse_args(argv)
    load_before = docs_block.load()

    base = args.keep or Path(tempfile.mkdtemp(prefix="bench_plan-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        config = write_config(base / "data")
        listing: list[str] = []
        dry_run(ROOT, base / "work", config, args.snakemake_args, listing=listing)  # the shape, and a warm cache
        n_jobs = int(re.search(r"^total\s+(\d+)$", listing[-1], re.M).group(1))
        shaped = shaped_snakefile(base / "shaped", listing[-1])
        trivial = trivial_snakefile(base / "trivial", n_jobs)
        built = base / "built"
        build_folder(ROOT, built, config, listing[-1])
        built_jobs = dry_run(ROOT, built, None, args.snakemake_args, fresh=False)[0]
        (built / "config.yaml").write_text(yaml.safe_dump(with_one_more_model(config), sort_keys=False))
        runs: dict[str, list] = {"this checkout": [], "same graph, bare rules": [],
                                 "one model added to a built folder": [], f"trivial jobs ({n_jobs:,})": []}
        ratios = []
        for _ in range(args.repeat):  # alternating, so the machine's drift reaches every plan alike
            full = dry_run(ROOT, base / "work", config, args.snakemake_args)
            bare = dry_run(shaped, base / "work", None, [])
            runs["this checkout"].append(full)
            runs["same graph, bare rules"].append(bare)
            runs["one model added to a built folder"].append(
                dry_run(ROOT, built, None, args.snakemake_args, fresh=False))
            runs[f"trivial jobs ({n_jobs:,})"].append(dry_run(trivial, base / "work", None, []))
            ratios.append(full[1] / bare[1])
        rows = {name: best(r) for name, r in runs.items()}
        text = report(rows, ratios, args.repeat, built_jobs)
        print(text)
        if args.write_docs:
            docs_block.write(DOCS, "bench_plan", text, docs_block.command(argv), load_before)

        if args.cprofile:
            out = base / "plan.prof"
            dry_run(ROOT, base / "work", config, args.snakemake_args, cprofile=out)
            print(f"\nthis checkout's dry run under cProfile ({out}), by cumulative time:")
            pstats.Stats(str(out)).sort_stats("cumulative").print_stats(args.cprofile)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
