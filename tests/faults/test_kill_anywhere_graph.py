"""A kill anywhere leaves the same results: the default graph (its datasets' measures, the random
model and SmolLM2, the analysis) on real ML-100K with 3 questions per measure (one small NeuMF training) is SIGKILLed as a
whole process group the moment each rule kind's first job starts (its log file appears: the
rule's own start marker), unlocked and resumed, kind after kind, until a run finishes. Every
result file then equals one clean run's, except fields that are timings by name."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.graph import snakemake as run_to_end

# minutes of kills and resumes: run on its own (`pytest -m soak`), outside make test's budget
pytestmark = [pytest.mark.slow, pytest.mark.soak]
ROOT = Path(__file__).resolve().parents[2]
# fields that are timings, by name: they differ between two clean runs too
TIMING = re.compile(r"(^|_)(wall|latency|latencies|seconds|elapsed|duration|start|end|started|ended|time|"
                    r"timestamp|when|s_per|per_s)(_s|_ms|_at)?($|_)")
# tables of timings only (their every cell is one)
TIMING_FILES = re.compile(r"latenc|benchmark")


def config(work: Path, shared_data: Path) -> None:
    default = yaml.safe_load((ROOT / "config.yaml").read_text())
    ml = {k: v for k, v in default["datasets"]["ml100k"].items() if k not in ("prefix", "source", "format")}
    ml.update(format="ml-100k", source={"path": str(shared_data / "movielens-100k/raw")})
    work.mkdir(parents=True, exist_ok=True)
    (work / "config.yaml").write_text((ROOT / "config.yaml").read_text())
    (work / "small.yaml").write_text(yaml.safe_dump({"questions": {"per_measure": 3}, "datasets": {"ml100k": ml},
                                                     "analysis": {"bootstrap": 100},
                                                     # one small NeuMF training: the neural golds' rule kind, cheaply
                                                     "groundtruth": {"neumf": {"epochs": 1, "seeds": 1, "factors": 4,
                                                                               "layers": [8]}}}))


def start(work: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(work),
                             "--configfile", str(work / "config.yaml"), str(work / "small.yaml"),
                             "--cores", "2", "--rerun-incomplete"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def started_kinds(work: Path) -> set[str]:
    logs = work / "logs"
    return {p.relative_to(logs).parts[0] for p in logs.rglob("*") if p.is_file()} - {"benchmark"} if logs.exists() else set()


def strip_timings(obj):
    if isinstance(obj, dict):
        return {k: strip_timings(v) for k, v in obj.items() if not TIMING.search(str(k).lower())}
    if isinstance(obj, list):
        return [strip_timings(v) for v in obj]
    return obj


def contents(root: Path) -> dict:
    out = {}
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root).as_posix()
        if TIMING_FILES.search(rel):
            out[rel] = None
        elif p.suffix == ".json":
            out[rel] = strip_timings(json.loads(p.read_text()))
        elif p.suffix == ".jsonl":
            out[rel] = [strip_timings(json.loads(line)) for line in p.read_text().splitlines() if line.strip()]
        else:
            out[rel] = p.read_bytes()
    return out


# Measured (11 min 50 s on the shared 2 cores, every one of the 15 rule kinds killed): every result
# file equals the clean run's but results/gt/ml100k/neumf.pt, whose tensors are equal and whose
# training log carries `seconds` (12.98 vs 49.691), and the 27 provenance records and the site page
# that cite its sha256. Open: the NeuMF rule keeps its timing outside the .pt.
def test_a_kill_inside_every_rule_kind_leaves_the_clean_runs_results(tmp_path, shared_data):
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    config(clean, shared_data)
    config(killed, shared_data)
    run_to_end(clean, "--configfile", str(clean / "config.yaml"), str(clean / "small.yaml"))
    kinds = started_kinds(clean)
    done: list[str] = []
    for _ in range(len(kinds) + 1):
        before = started_kinds(killed)
        proc = start(killed)
        while proc.poll() is None:
            new = started_kinds(killed) - before - set(done)
            if new:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                done += sorted(new)
                break
            time.sleep(0.02)
        if proc.returncode == 0:
            break
        subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(killed),
                        "--configfile", str(killed / "config.yaml"), str(killed / "small.yaml"), "--unlock"],
                       check=True, capture_output=True)
    assert proc.returncode == 0
    assert set(done) >= kinds - {"code_stamp"} and {"ingest", "answer", "score", "table"} <= set(done), (done, kinds)
    a, b = contents(clean / "results"), contents(killed / "results")
    assert sorted(a) == sorted(b)
    differ = [k for k in a if a[k] != b[k]]
    assert differ == []
