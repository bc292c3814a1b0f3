"""A kill anywhere leaves the same results: the default graph (its datasets' measures, the random
model and SmolLM2, the analysis) on real ML-100K with 3 questions per measure (one small NeuMF training) is SIGKILLed as a
whole process group the moment each rule kind's first job starts (its log file appears: the
rule's own start marker), unlocked and resumed, kind after kind, until a run finishes. Every
result file then equals one clean run's, except fields that are timings by name."""

import hashlib
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
# keys that name the run, not its results, and differ between two clean runs too: a job record's
# process id and a provenance record's `recorded.at` (a time; the TIMING pattern cannot take a bare
# `at` without taking `hit_ratio_at_1`)
RUN_KEYS = {"pid", "at"}
# a time written into a text file (the provenance markdown's "built ... 20:22:27.822Z .. ...Z")
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
# what a write killed between its temp file and its rename leaves (lrworld.core.io.atomic_path):
# SIGKILL runs no cleanup, so the hidden temp file stays beside the output, which the resumed job
# writes whole; no rule, pack or record reads it
KILLED_WRITE = re.compile(r"(^|/)\.[^/]+\.[0-9a-f]{12}\.tmp$")
# a file's sha256 as records cite it: whole, or its first 12 digits (the provenance markdown)
DIGEST = re.compile(r"\b([0-9a-f]{64}|[0-9a-f]{12})\b")


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
        return {k: strip_timings(v) for k, v in obj.items() if not TIMING.search(str(k).lower()) and k not in RUN_KEYS}
    if isinstance(obj, list):
        return [strip_timings(v) for v in obj]
    return obj


def _swap(obj, cited: dict[str, str]):
    """`obj` with each digest of a result file replaced by its digest as compared (`cited`); a cited
    file's size goes with its digest where that file holds timings (a number's digits vary)."""
    if isinstance(obj, dict):
        out = {k: _swap(v, cited) for k, v in obj.items()}
        if cited.get(obj.get("sha256"), obj.get("sha256")) != obj.get("sha256"):
            out.pop("bytes", None)
        return out
    if isinstance(obj, list):
        return [_swap(v, cited) for v in obj]
    if isinstance(obj, str):
        return DIGEST.sub(lambda m: cited.get(m.group(0), m.group(0)), obj)
    return obj


def _view(rel: str, data: bytes, cited: dict[str, str], strip: bool = True):
    """A result file as compared: timings out (`strip`), and every digest it cites of another
    result file replaced by that file's digest as compared (`cited`)."""
    if strip and TIMING_FILES.search(rel):
        return None
    keep = strip_timings if strip else (lambda obj: obj)
    if rel.endswith(".json"):
        return _swap(keep(json.loads(data)), cited)
    if rel.endswith(".jsonl"):
        return [_swap(keep(json.loads(line)), cited) for line in data.decode().splitlines() if line.strip()]
    if rel.endswith((".md", ".html")):
        text = _swap(data.decode(), cited)
        return ISO_TIME.sub("<time>", text) if strip else text
    return data


def contents(root: Path) -> dict:
    """Every file under `root` as compared. A record that cites the sha256 of a file holding timings
    (a job record: start, end, pid) differs between two clean runs by design, and so does a record
    citing that record's digest (the table's provenance cites the score records): each such digest
    is replaced by the digest of the cited file's compared form, level after level until none
    changes, so a digest differs here only when what it cites differs beyond timings. A file with
    nothing to take out keeps its own digest."""
    raw = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    sha = {rel: hashlib.sha256(data).hexdigest() for rel, data in raw.items()}
    plain = {rel: _view(rel, data, {}, strip=False) for rel, data in raw.items()}
    as_compared = dict(sha)
    for _ in range(len(raw) + 1):
        cited = {sha[r]: d for r, d in as_compared.items()} | {sha[r][:12]: d[:12] for r, d in as_compared.items()}
        out = {rel: _view(rel, data, cited) for rel, data in raw.items()}
        again = {rel: sha[rel] if out[rel] == plain[rel] else hashlib.sha256(repr(out[rel]).encode()).hexdigest()
                 for rel in raw}
        if again == as_compared:
            return out
        as_compared = again
    raise AssertionError("digests citing each other in a cycle")


# neumf.pt is compared byte for byte: its tensors come from seeded draws, and the file's bytes from
# them only (lrworld.core.tensors.save_tensors), so a retrained one must carry the clean digest.
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
    b = {rel: v for rel, v in b.items() if not KILLED_WRITE.search(rel)}
    assert sorted(a) == sorted(b)
    differ = [k for k in a if a[k] != b[k]]
    assert differ == []
