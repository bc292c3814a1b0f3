"""One writer per cache file: over the paper-scale plan no two answer jobs write one file (the
single file per model did), and two answer jobs of one model at once keep both answer sets with
nothing asked twice."""

import itertools
import multiprocessing
from collections import Counter
from pathlib import Path

from lrworld.inference import shards
from lrworld.inference.cache import ResponseCache, cache_key
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
    # 59 jobs: 17 models on the datasets each answers a measure of, and the captioner on 3 of them
    assert len(jobs) >= 59 and len(models) >= 18 and max(models.values()) >= 4
    cache_dir = Path(plan.cache_dir)
    assert shared_writes(jobs, lambda t, s, m: shards.written_files(cache_dir, t, s, m)) == {}
    # the single file per model every answer job of the model wrote: shared by every such job (all
    # models but Llama-3.1-70B, which the paper ran on Amazon only)
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
    assert sorted(p.relative_to(cache_dir).as_posix() for p in shards.shards(cache_dir, "m")) == [
        "m.sqlite", "responses/m/lrworld/one.sqlite", "responses/m/lrworld/two.sqlite"]
    reader = shards.ModelCache(cache_dir, "m")
    got = reader.get_many([cache_key({"backend": "counting"}, n) for n in a + b])
    assert len(got) == 81 and got[cache_key({"backend": "counting"}, "old")]["raw_text"] == "B"
    assert len(reader) == 81
    # a later job asking both sets asks nothing
    again = tmp_path / "again.log"
    answer_job(cache_dir, "three", a + b, again, ctx.Barrier(1))
    assert not again.exists()
