"""One writer per cache file: over the paper-scale plan no two answer jobs write one file (the
single file per model did), and two answer jobs of one model at once keep both answer sets with
nothing asked twice."""

import itertools
import multiprocessing
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from lrworld.inference import shards
from lrworld.inference.cache import ResponseCache, cache_key, request_key
from lrworld.inference.stage import answer_prompts
from lrworld.models.base import Response
from lrworld.workflow.scale import load_plan

ROOT = Path(__file__).resolve().parents[2]


def shared_writes(jobs, written) -> dict:
    """{file: jobs} for every file written by two jobs. Every pair of answer jobs counts as able to
    run at once (a superset of the real pairs: only a captioner's job precedes a dataset's others)."""
    by_file: dict[Path, list] = {}
    for job in jobs:
        for f in written(*job):
            by_file.setdefault(f, []).append(job)
    return {f: js for f, js in by_file.items() if any(a != b for a, b in itertools.combinations(js, 2))}


def test_no_two_answer_jobs_of_the_paper_plan_write_one_file():
    plan = load_plan(ROOT, [ROOT / "config/paper.yaml"], paper_models=True)
    jobs = plan.answer_jobs()
    models = Counter(m for _, _, m in jobs)
    # 56 jobs: 18 models on the datasets each answers a measure of, and the captioner on 3 of them
    assert len(jobs) >= 56 and len(models) >= 18 and max(models.values()) >= 4
    cache_dir = Path(plan.cache_dir)
    # each job's process, and the same jobs of a second invocation on the same cache_dir at once
    # (writer ids alike in all but one character: names are not cut or folded)
    for writers in (["w1"], ["w1", "w2"]):
        runs = [(*job, w) for job in jobs for w in writers]
        assert shared_writes(runs, lambda t, s, m, w: shards.written_files(cache_dir, t, s, m, w)) == {}
    # the single file per model every answer job of the model wrote: shared by every such job
    shared = shared_writes(jobs, lambda t, s, m: [cache_dir / f"{m}.sqlite"])
    assert len(shared) == sum(n >= 2 for n in models.values()) and len(shared) >= 17


class Counting:
    """A backend answering 'A' that records what it was asked in a file of its own."""

    def __init__(self, log: Path):
        self.log = log

    def identity(self):
        return {"backend": "counting"}

    def answer(self, items):
        with self.log.open("a") as f:
            f.writelines(f"{it.prompt}\n" for it in items)
        return [Response(qid=it.qid, raw_text="A") for it in items]


def requests(names):
    return [{"qid": n, "prompt": n, "prompt_sha256": n, "labels": ["A", "B"], "candidates": ["x", "y"],
             "answer_index": 0} for n in names]


def answer_job(cache_dir, scope, names, log, start):
    start.wait()  # both jobs write at once
    cache = shards.ModelCache(cache_dir, "m", writer=("lrworld", scope))
    answer_prompts(requests(names), lambda: Counting(Path(log)), cache, chunk_size=3)
    cache.close()


def test_two_answer_jobs_of_one_model_at_once(tmp_path):
    cache_dir = tmp_path / "cache"
    legacy = ResponseCache(shards.legacy_file(cache_dir, "m"))  # a single-file cache from before shards
    legacy.put(cache_key({"backend": "counting"}, "old"), {"raw_text": "B"})
    legacy.close()
    a = [f"a{i}" for i in range(40)] + ["old"]
    b = [f"b{i}" for i in range(40)]
    ctx = multiprocessing.get_context("fork")
    start = ctx.Barrier(2)
    procs = [ctx.Process(target=answer_job, args=(cache_dir, scope, names, tmp_path / f"{scope}.log", start))
             for scope, names in (("one", a), ("two", b))]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    asked = [line for scope in ("one", "two") for line in (tmp_path / f"{scope}.log").read_text().split()]
    assert sorted(asked) == sorted(a[:-1] + b)  # each once; the old file's answer not asked again
    names = [p.relative_to(cache_dir).as_posix() for p in shards.shards(cache_dir, "m")]
    assert names[0] == "m.sqlite" and len(names) == 3
    assert sorted(re.sub(r"\.[0-9a-f]{16}-[\w-]+-[0-9]+-[0-9a-f]{6}\.", ".<writer>.", n) for n in names[1:]) == [
        "responses/m/lrworld/one.<writer>.sqlite", "responses/m/lrworld/two.<writer>.sqlite"]
    reader = shards.ModelCache(cache_dir, "m")
    got = reader.get_many([cache_key({"backend": "counting"}, n) for n in a + b])
    assert len(got) == 81 and got[cache_key({"backend": "counting"}, "old")]["raw_text"] == "B"
    assert len(reader) == 81
    # a later job asking both sets asks nothing
    again = tmp_path / "again.log"
    answer_job(cache_dir, "three", a + b, again, ctx.Barrier(1))
    assert not again.exists()
    assert len(shards.shards(cache_dir, "m")) == 3  # and leaves no empty shard behind


def test_an_answer_another_process_stored_is_not_asked_again(tmp_path):
    """Another process (a second invocation on the same cache_dir) stores every answer while this
    job's third request is on the wire: that one is answered twice (it was in flight), no request
    goes after it."""
    from lrworld.inference.stage import fill_cache
    from lrworld.models import make_backend
    from tests.support.fault_server import FaultServer

    cache_dir = tmp_path / "cache"
    reqs = [{"qid": f"q{i}", "prompt": f"Question {i}?", "labels": ["A", "B"]} for i in range(40)]
    other = shards.shard_file(cache_dir, "m", "lrworld", "ml", shards.writer_id())
    ResponseCache(other).close()

    def plan(prompt, attempt):
        if sum(srv.requests.values()) == 3:  # the third request: the other process stores all 40
            cache = ResponseCache(other)
            for r in reqs:
                cache.put(request_key(identity, r), {"raw_text": "A", "choice_index": 0, "label_logprobs": [-0.1, -2.0]},
                          identity)
            cache.close()
        return "ok"

    with FaultServer(plan=plan) as srv:
        cfg = {"backend": "openai", "model": "gpt-4o-mini", "mode": "choice", "base_url": srv.base_url,
               "concurrency": 1}
        identity = make_backend("m", cfg).identity()
        cache = shards.ModelCache(cache_dir, "m", writer=("lrworld", "ml"))
        info = fill_cache(reqs, lambda: make_backend("m", cfg), cache)
        cache.close()
    assert sum(srv.requests.values()) == 3 and (info["asked"], info["cached"]) == (3, 37)
    assert len(shards.shards(cache_dir, "m")) == 2
    assert len(shards.ModelCache(cache_dir, "m").get_many([request_key(identity, r) for r in reqs])) == 40


KILLED_MID_WRITE = """
import os, sys
sys.path.insert(0, {root!r})
from lrworld.inference import shards
from lrworld.inference.cache import ResponseCache
cache = ResponseCache(shards.shard_file({cache_dir!r}, "m", "lrworld", "ml", shards.writer_id()))
cache.put("stored", {{"raw_text": "A"}})
cache._db.execute("PRAGMA cache_size=1")  # the write spills into the file before its commit
cache._db.execute("BEGIN")
for i in range(2000):
    cache._db.execute("INSERT INTO responses (key, record) VALUES (?, ?)", (f"torn{{i}}", "x" * 500))
os._exit(0)  # killed mid-write: the file and its hot journal stay
"""


def test_a_shard_its_killed_process_left_mid_write_is_rolled_back_by_the_next_answer_job(tmp_path, caplog):
    cache_dir = tmp_path / "cache"
    subprocess.run([sys.executable, "-c", KILLED_MID_WRITE.format(root=str(ROOT), cache_dir=str(cache_dir))], check=True)
    (killed,) = shards.shards(cache_dir, "m")
    assert killed.with_name(killed.name + "-journal").exists() and shards.writer_gone(killed)
    caplog.set_level("WARNING")
    reader = shards.ModelCache(cache_dir, "m")  # a score job: never writes another's shard
    assert reader.get_many(["stored"]) == {} and "skipped" in caplog.text
    reader.close()
    job = shards.ModelCache(cache_dir, "m", writer=("lrworld", "ml"))  # the rerun's answer job
    assert job.get_many(["stored", "torn0"]) == {"stored": {"raw_text": "A"}}
    assert f"{killed}: rolled back the write its killed process left unfinished" in caplog.text
    assert not killed.with_name(killed.name + "-journal").exists()
    job.close()
    # a live writer (this process) is never taken for gone, nor one of another host
    assert not shards.writer_gone(shards.shard_file(cache_dir, "m", "lrworld", "ml", shards.writer_id()))
    assert not shards.writer_gone(killed.with_name(re.sub(r"-[\w-]+-(\d+)-", r"-elsewhere-\1-", killed.name)))
