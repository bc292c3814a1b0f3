"""How long `snakemake -n` takes to plan a large config: 3 datasets x 31 measures x 20 models x 4
variants, for today's layout and this checkout's, side by side in one run.

    python benchmarks/bench_plan.py                    # baseline: BASELINE below
    python benchmarks/bench_plan.py --baseline <ref>   # any commit of this repository
    python benchmarks/bench_plan.py --cprofile 25      # and where this checkout's plan spends its time
    python benchmarks/bench_plan.py --repeat 3 --write-docs   # the figures into docs/slurm.md

The datasets are generated fixtures (Amazon 2018 and two Netflix Prize folders in their published
formats, tests/support), so the plan needs no data; nothing is run but dry runs. The baseline is
extracted with `git archive` into a scratch folder and planned from there with the same config.
A third row plans a graph of trivial jobs (one shell rule) of the same size as this checkout's
plan: what Snakemake itself costs on this machine at that moment, so a loaded machine shows as a
slow floor rather than as a slow workflow. A fourth plans the trivial graph with the house rule on
its one rule (a log, params, a conda env and a script per job, as every rule here has): the floor
of any workflow that keeps that rule. A fifth plans this checkout's own graph stripped to
its shape (the same jobs, inputs, outputs, logs and edges, read from its dry-run listing; bare
rules: no params, conda, config or imports): what Snakemake costs for what the rules declare, so
the workflow's own cost is what this checkout takes beyond it. Each layout is planned in a fresh working directory;
the best of --repeat runs is kept. CPU is the user + system time of the snakemake process.
"""

from __future__ import annotations

import argparse
import io
import json
import pstats
import re
import resource
import shutil
import subprocess
import sys
import tarfile
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

# the layout before per-cell jobs were bundled: responses, score and provenance were one job each per cell
BASELINE = "ad0c02d"
LAYOUT = ["Snakefile", "rules", "scripts", "lrworld", "envs", "docs"]
VARIANTS = ["zero_shot", "cot", "noisy", "kshot"]
N_MODELS = 20
DOCS = ROOT / "docs" / "slurm.md"


def write_config(out: Path) -> dict:
    """The issue's config over generated data: Amazon (product, 11 measures) and two Netflix
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


def extract(ref: str, dest: Path) -> Path:
    """The workflow files of commit `ref`, from this repository's history."""
    proc = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, *LAYOUT], capture_output=True)
    if proc.returncode != 0:
        sys.exit(f"bench_plan: git archive {ref}: {proc.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def trivial_snakefile(dest: Path, n_jobs: int) -> Path:
    """`rule all` over n_jobs - 1 outputs of one shell rule."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "Snakefile").write_text(
        f"rule all:\n    input: expand('out/{{i}}.txt', i=range({n_jobs - 1}))\n\n"
        "rule job:\n    output: 'out/{i}.txt'\n    shell: 'touch {output}'\n")
    return dest


def house_snakefile(dest: Path, n_jobs: int) -> Path:
    """The trivial graph with the house rule on its one rule: each job with a log, params (a
    constant and a wildcard function), a conda env and a script, as every rule of this workflow
    has (rules/, `snakemake --lint`), and still one output and one edge. What Snakemake costs for
    the rule features the house keeps before any file or edge beyond the trivial graph's."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "s.py").write_text("open(snakemake.output[0], 'w').close()\n")
    shutil.copy(ROOT / "envs" / "lrworld.yaml", dest / "env.yaml")
    (dest / "Snakefile").write_text(
        f"rule all:\n    input: expand('out/{{i}}.txt', i=range({n_jobs - 1}))\n\n"
        "rule job:\n    output: 'out/{i}.txt'\n    params: seed=1, name=lambda wc: wc.i\n"
        "    log: 'logs/{i}.log'\n    conda: 'env.yaml'\n    script: 's.py'\n")
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
            cprofile: Path | None = None, listing: list | None = None) -> tuple[int, float, float]:
    """(jobs, wall seconds, CPU seconds) of one `snakemake -n` in a fresh working directory; its
    listing appended to `listing` if given."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
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


def report(rows: dict, baseline: str, repeat: int) -> str:
    """Ratios first (this checkout against Snakemake's own floor and against the baseline), then
    the table. The figures are rounded only here, in text."""
    (j0, w0, c0), (j1, w1, c1) = rows[f"baseline {baseline}"], rows["this checkout"]
    _, wt, ct = rows[f"trivial jobs ({j1})"]
    _, ws, cs = rows["same graph, bare rules"]
    _, wh, ch = rows["trivial jobs, house rule"]
    lines = [f"- this checkout / trivial graph of the same job count: **{w1 / wt:.2f}x** wall, {c1 / ct:.2f}x CPU "
             f"(goal: under 1.5x)",
             f"- this checkout / the same graph with bare rules (its jobs, files, logs and edges; no params, "
             f"conda, config or imports): {w1 / ws:.2f}x wall, {c1 / cs:.2f}x CPU; that graph / the trivial one: "
             f"{ws / wt:.2f}x wall, {cs / ct:.2f}x CPU",
             f"- the trivial graph with the house rule on its jobs (a log, params, a conda env and a script each; "
             f"still one output and one edge) / the trivial one: {wh / wt:.2f}x wall, {ch / ct:.2f}x CPU; the goal "
             f"leaves {1.5 * wt - wh:.2f} s (wall) for everything this graph has beyond it: its "
             f"{j1:,} jobs' other files and edges, their params, and the Snakefile",
             f"- this checkout vs baseline {baseline}: {j0 / j1:.2f}x fewer jobs, {w0 / w1:.2f}x less wall time, "
             f"{c0 / c1:.2f}x less CPU",
             f"- this checkout: {j1:,} jobs planned in {w1:.1f} s (goal on a quiet 2-core machine: under 5 s)",
             "",
             f"`snakemake -n` of 3 datasets x 31 measures x {N_MODELS} models x {len(VARIANTS)} variants "
             f"(best of {repeat}):",
             "",
             "| layout | jobs | wall s | CPU s | CPU ms/job |",
             "|---|---:|---:|---:|---:|"]
    for name, (jobs, wall, cpu) in rows.items():
        lines.append(f"| {name} | {jobs:,} | {wall:.2f} | {cpu:.2f} | {1000 * cpu / max(jobs, 1):.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default=BASELINE, help=f"commit of today's layout (default {BASELINE})")
    ap.add_argument("--repeat", type=int, default=1, help="dry runs per layout; the fastest is kept")
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
        layouts = {f"baseline {args.baseline}": extract(args.baseline, base / "baseline"), "this checkout": ROOT}
        rows, listing = {}, []
        for name, tree in layouts.items():
            rows[name] = best([dry_run(tree, base / "work", config, args.snakemake_args,
                                       listing=listing if tree == ROOT else None) for _ in range(args.repeat)])
        n_new = rows["this checkout"][0]
        floor = trivial_snakefile(base / "trivial", n_new)
        rows[f"trivial jobs ({n_new})"] = best([dry_run(floor, base / "work", None, []) for _ in range(args.repeat)])
        house = house_snakefile(base / "house", n_new)
        rows["trivial jobs, house rule"] = best([dry_run(house, base / "work", None, []) for _ in range(args.repeat)])
        shaped = shaped_snakefile(base / "shaped", listing[-1])
        rows["same graph, bare rules"] = best([dry_run(shaped, base / "work", None, []) for _ in range(args.repeat)])
        text = report(rows, args.baseline, args.repeat)
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
