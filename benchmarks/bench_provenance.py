"""What the provenance records of one dataset cost to write: every (model, measure) job records 4
variants, and each record hashes the files of its chain, the raw dataset files included.

    python benchmarks/bench_provenance.py                       # a 256 MB raw file, 10 jobs
    python benchmarks/bench_provenance.py --raw-mb 1024 --jobs 20
    python benchmarks/bench_provenance.py --write-docs          # the figures into docs/provenance.md

Side by side in one run, over the same chain: every file hashed for every record (the plain way), against scripts/provenance_score.py's digest store (a file of 1 MB or more
read once until its bytes change; lrworld/core/digests.py). At the paper's size a dataset has 200+
(model, measure) jobs and gigabytes of raw files (Netflix Prize parts 1-2 are about 1 GB).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import docs_block  # noqa: E402
from lrworld.core import io  # noqa: E402
from lrworld.core.digests import DigestStore  # noqa: E402
from lrworld.provenance.record import score_chain  # noqa: E402
from tests.support.fixtures_chain import chain_files  # noqa: E402

VARIANTS = 4
DOCS = Path(__file__).resolve().parents[1] / "docs" / "provenance.md"


def make_chain(dest: Path, raw_mb: int) -> tuple[dict, str]:
    inp = chain_files(dest)
    raw = dest / "combined_data_1.txt"
    with open(raw, "wb") as fh:
        block = os.urandom(1 << 20)
        for _ in range(raw_mb):
            fh.write(block)
    return inp, str(raw)


def run(inp: dict, raw: str, jobs: int, store_path: Path | None) -> float:
    t0 = time.perf_counter()
    for _ in range(jobs):
        store = DigestStore(store_path, min_bytes=1 << 20) if store_path else None
        for _ in range(VARIANTS):
            score_chain(inp, [raw], [], store.sha256 if store else io.sha256_file)
        if store:
            store.save()
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw-mb", type=int, default=256, help="size of the one raw file (MB)")
    ap.add_argument("--jobs", type=int, default=10, help="(model, measure) jobs of the dataset")
    ap.add_argument("--write-docs", action="store_true", help="write the figures into docs/provenance.md's block")
    args = ap.parse_args(argv)
    load_before = docs_block.load()
    with tempfile.TemporaryDirectory(prefix="bench_provenance-") as tmp:
        inp, raw = make_chain(Path(tmp), args.raw_mb)
        every = run(inp, raw, args.jobs, None)
        stored = run(inp, raw, args.jobs, Path(tmp) / "digests.json")
    n = args.jobs * VARIANTS
    print(f"{args.jobs} jobs x {VARIANTS} variants = {n} records, one {args.raw_mb} MB raw file:")
    print(f"- every file hashed for every record: {every:.2f} s ({every / n:.3f} s a record)")
    print(f"- digest store: {stored:.2f} s ({stored / n:.3f} s a record)")
    print(f"- ratio: {every / stored:.1f}x less time with the store")
    if args.write_docs:
        body = (f"{args.jobs} jobs x {VARIANTS} variants = {n} records over one {args.raw_mb} MB raw file:\n\n"
                "| hashing | ratio | s | s a record |\n|---|---:|---:|---:|\n"
                f"| every file for every record / digest store | {every / stored:.1f}x | | |\n"
                f"| every file for every record | | {every:.2f} | {every / n:.3f} |\n"
                f"| digest store (`lrworld/core/digests.py`) | | {stored:.2f} | {stored / n:.3f} |\n")
        docs_block.write(DOCS, "bench_provenance", body, docs_block.command(argv), load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
