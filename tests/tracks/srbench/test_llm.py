"""LLM-SR through the one inference stage on real ML-100K: T runs of every user are T requests
(the run index is the request's sample), answered through the cache, read back into lists by the
extractor; a killed run resumes without asking a finished request again."""

import math
import re

import pytest

from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache, read_answers
from lrworld.models import Response, make_backend
from lrworld.tracks.srbench import llm, runner


class ScriptedBackend:
    """Answers with the ids shown in the prompt (latest first), a hallucinated id, and, from
    run 1 on, one id that depends on the run: so runs overlap partly."""

    def identity(self):
        return {"backend": "scripted"}

    def answer(self, items):
        out = []
        for it in items:
            shown = re.findall(r"^(\d+): ", it.prompt, re.M)
            run = int(it.qid.rsplit("run", 1)[1])
            ids = shown[::-1][:3] + ["99999"] + ([str(100 + run)] if run else [])
            text = "Here you go:\n" + "\n".join(f"{n + 1}. {i}" for n, i in enumerate(ids))
            out.append(Response(qid=it.qid, raw_text=text, latency_s=0.5))
        return out



def answered_lists(reqs, backend, cache, sd, k):
    ident = fill_cache(reqs, lambda: backend, cache)
    return llm.lists(reqs, [a for _, a in read_answers(reqs, ident["identity"], cache)], sd, k), ident


def test_llm_runs_through_the_stage_and_extractor(ml100k_split, tmp_path):
    sd = ml100k_split
    reqs = llm.requests(sd, "ml-100k", sd.eval_users[:15], k=5, runs=3, mode="few_shot")
    recs, info = answered_lists(reqs, ScriptedBackend(), ResponseCache(tmp_path / "c.sqlite"), sd, 5)
    assert len(recs) == 45 and info["asked"] == 45  # the same prompt three times: three requests
    r0 = [r for r in recs if r["run"] == 0][0]
    hist = sd.histories()[r0["user_id"]]
    assert r0["items"] == hist[::-1][:3]  # list markers "1." not read as ids
    assert r0["hallucinated"] == [99999] and r0["latency_s"] == 0.5
    s = runner.score_records(recs, sd, [5])
    assert s["hallucination_rate"] == pytest.approx(3 / (4 + 5 + 5))
    assert s["art_s"] == 0.5
    # per user: run0 {a,b,c}, run1 {a,b,c,101}, run2 {a,b,c,102} -> Rep 3,3,3 -> 9/15
    assert s["K=5"]["arr"] == pytest.approx(9 / 15)
    assert s["K=5"]["short_rate"] == 1.0


class Dying(ScriptedBackend):
    def __init__(self, after):
        self.after, self.asked = after, []

    def answer(self, items):
        if len(self.asked) >= self.after:
            raise KeyboardInterrupt("killed")
        self.asked += [it.qid for it in items]
        return super().answer(items)


def test_a_killed_run_resumes_from_the_cache(ml100k_split, tmp_path):
    sd = ml100k_split
    reqs = llm.requests(sd, "ml-100k", sd.eval_users[:10], k=5, runs=4, mode="few_shot")
    cache = ResponseCache(tmp_path / "c.sqlite")
    first = Dying(after=16)
    with pytest.raises(KeyboardInterrupt):
        fill_cache(reqs, lambda: first, cache, chunk_size=8)
    again = Dying(after=10**9)
    info = fill_cache(reqs, lambda: again, cache, chunk_size=8)
    assert len(first.asked) == 16 and info["asked"] == 24 and not set(first.asked) & set(again.asked)
    assert fill_cache(reqs, lambda: Dying(after=0), cache)["asked"] == 0  # finished runs are never re-sampled


def test_random_backend_lists(ml100k_split, tmp_path):
    sd = ml100k_split
    reqs = llm.requests(sd, "ml-100k", sd.eval_users[:20], k=10, runs=2)
    recs, _ = answered_lists(reqs, make_backend("random", {"backend": "random", "seed": 0}),
                             ResponseCache(tmp_path / "c.sqlite"), sd, 10)
    assert all(len(r["items"]) == 10 for r in recs)
    assert recs[0]["items"] != recs[20]["items"]  # run 1 draws anew
    s = runner.score_records(recs, sd, [10])
    assert s["hallucination_rate"] == 0.0 and not math.isnan(s["K=10"]["arp"])
