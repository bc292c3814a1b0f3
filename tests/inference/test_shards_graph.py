"""Two `snakemake` invocations in two folders on one absolute `cache_dir` at once (two users of
one group cache, or a rerun started while another runs): no cache file has two writers, both
results are complete and equal, and a prompt is asked twice only while the other invocation had
it in flight."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections import Counter

import pytest
import yaml

from lrworld.core import io
from tests.support import writers
from tests.support.fault_server import FaultServer
from tests.support.fixtures_graph import UPSTREAM_QUESTIONS, smk_cmd, workdir_from

pytestmark = pytest.mark.slow

LATE_S = 1.0  # each answer takes this long: the two invocations overlap
TARGET = "results/scores/ml/api/attr_genre/zero_shot.json"


def responses(workdir):
    return [(r["qid"], r["raw_text"], r["parsed"])
            for r in io.read_jsonl(workdir / "results/responses/ml/api/attr_genre/zero_shot.jsonl")]


def test_two_invocations_on_one_cache_dir_at_once(tmp_path, shared_data, answer_upstream):
    cache = tmp_path / "cache"
    both = threading.Event()

    def plan(prompt, attempt):
        # hold every answer until both invocations have sent a request: they run side by side
        both.wait(timeout=300)
        return f"late:{LATE_S}"

    with FaultServer(plan=plan) as srv:
        model = {"backend": "openai", "model": "gpt-4o-mini", "mode": "choice", "base_url": srv.base_url,
                 "concurrency": 1, "api_key_env": "LRW_TEST_KEY"}  # each invocation's key names it to the server
        runs = {}
        for name in ("one", "two"):
            work = workdir_from(answer_upstream, tmp_path / name, shared_data, {"api": model})
            cfg = yaml.safe_load((work / "config.yaml").read_text())
            (work / "config.yaml").write_text(yaml.safe_dump({**cfg, "cache_dir": str(cache)}))
            env = {**os.environ, "LRW_TEST_KEY": name, "LRWORLD_WRITERS_ROOT": str(cache),
                   "LRWORLD_WRITERS_LOG": str(tmp_path / "writes.log"),
                   "PYTHONPATH": os.pathsep.join([str(writers.SITE_DIR), os.environ.get("PYTHONPATH", "")])}
            runs[name] = (work, subprocess.Popen(smk_cmd(work, TARGET), env=env, stdout=subprocess.PIPE,
                                                 stderr=subprocess.STDOUT, text=True))
        deadline = time.monotonic() + 300
        while len(srv.auth_headers) < 2 and time.monotonic() < deadline and any(
                p.poll() is None for _, p in runs.values()):
            time.sleep(0.05)
        both.set()
        for work, proc in runs.values():
            out = proc.communicate(timeout=600)[0]
            assert proc.returncode == 0, out[-3000:]
        log = list(srv.log)

    # both complete and equal
    one, two = runs["one"][0], runs["two"][0]
    assert len(responses(one)) == UPSTREAM_QUESTIONS and responses(one) == responses(two)
    assert json.loads((one / TARGET).read_text()) == json.loads((two / TARGET).read_text())

    # no file under the cache written by two processes; each invocation's answer job its own shard
    written = writers.writers(tmp_path / "writes.log")
    assert written and {p: pids for p, pids in written.items() if len(pids) > 1} == {}
    shards = sorted(p.name for p in (cache / "responses/api/lrworld").glob("*.sqlite"))
    assert len(shards) == 2 and all(re.fullmatch(r"ml\.[0-9a-f]{16}-[\w-]+-\d+-[0-9a-f]{6}\.sqlite", s) for s in shards)
    assert len(list((cache / "replies/lrworld/ml").glob("api.*.json"))) == 2  # one per folder

    # both asked; a prompt asked twice only while the other's answer was in flight (not yet stored)
    by = Counter(e["auth"] for e in log)
    assert set(by) == {"Bearer one", "Bearer two"}
    asked = Counter(e["prompt"] for e in log)
    assert len(asked) == UPSTREAM_QUESTIONS and max(asked.values()) <= 2
    summaries = [json.loads((w / "results/answers/lrworld/ml/api.json").read_text()) for w in (one, two)]
    assert sum(s["asked"] for s in summaries) == len(log) < 2 * UPSTREAM_QUESTIONS
    for prompt in (p for p, n in asked.items() if n == 2):
        first, second = sorted(e["t"] for e in log if e["prompt"] == prompt)
        assert second - first < LATE_S + 2.0, prompt  # the first answer came at first + LATE_S
