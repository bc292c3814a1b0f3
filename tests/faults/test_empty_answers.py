"""Only real answers are cached: a 200 with `content: null`, or an empty reply cut by
`finish_reason: length`, is retried within the budget and then fails the job naming the model;
nothing is stored, so a fixed server is asked again."""

import json
import sqlite3

import pytest

from lrworld.inference.cache import NotAnAnswer, ResponseCache, why_not_an_answer
from lrworld.inference.stage import fill_cache
from lrworld.models.base import Response
from lrworld.models.backends.openai import OpenAIBackend
from lrworld.models.retry import BackendError
from tests.support.fault_server import FaultServer


def prompts(n):
    return [{"qid": f"q{i}", "prompt": f"Question {i}?\nA. x\nB. y\nAnswer:", "labels": ["A", "B"],
             "candidates": ["x", "y"]} for i in range(n)]


def backend(srv, **kw):
    return OpenAIBackend("api", {"model": "smol", "base_url": srv.base_url, "max_tokens": 8, "max_retries": 2,
                                 "retry_base_s": 0.0, "retry_max_delay_s": 0.0, "concurrency": 2, **kw})


@pytest.mark.parametrize("fault", ["null_content", "empty_length"])
@pytest.mark.parametrize("mode", ["generate", "choice"])
def test_an_empty_body_fails_the_job_naming_the_model_and_is_not_cached(tmp_path, fault, mode):
    cache = ResponseCache(tmp_path / "api.sqlite")
    with FaultServer({"*": [fault] * 10}) as srv:
        with pytest.raises(BackendError, match=r"models\.api \(model 'smol'\).*gave up after 3 attempts.*"
                                               + ("content: null" if fault == "null_content" else "empty reply")):
            fill_cache(prompts(3), lambda: backend(srv, mode=mode), cache)
        assert max(srv.requests.values()) == 3  # one try and max_retries=2 retries
    assert len(cache) == 0
    # the server is fixed: every prompt is asked again (not 'asked 0' with stored misses)
    with FaultServer() as srv:
        info = fill_cache(prompts(3), lambda: backend(srv, mode=mode), cache)
    assert info["asked"] == 3 and len(cache) == 3


def test_a_transient_empty_body_is_retried_and_the_real_answer_cached(tmp_path):
    cache = ResponseCache(tmp_path / "api.sqlite")
    with FaultServer({"*": ["null_content", "empty_length", "ok"]}) as srv:
        info = fill_cache(prompts(2), lambda: backend(srv), cache)
    assert info["asked"] == 2
    recs = [json.loads(r) for (r,) in sqlite3.connect(tmp_path / "api.sqlite").execute("SELECT record FROM responses")]
    assert len(recs) == 2
    assert all(r["raw_text"].startswith("The answer is") and r["extra"]["attempts"] == 3 for r in recs)


def test_a_flagged_refusal_is_an_answer(tmp_path):
    cache = ResponseCache(tmp_path / "api.sqlite")
    with FaultServer({"*": ["content_filter"]}) as srv:
        info = fill_cache(prompts(2), lambda: backend(srv), cache)
    assert info["asked"] == 2 and len(cache) == 2


class Returns:
    name = "scripted"

    def __init__(self, resp):
        self.resp = resp

    def identity(self):
        return {"backend": "scripted", "model": "m"}

    def answer(self, items):
        return [Response(qid=it.qid, **self.resp) for it in items]


@pytest.mark.parametrize("resp, real", [
    ({"raw_text": "B"}, True),
    ({"raw_text": "", "extra": {"refusal": True}}, True),
    ({"raw_text": "", "label_logprobs": [-1.2, None]}, True),
    ({"raw_text": "", "extra": {"finish_reason": "eos"}}, True),  # a local model ended its greedy output
    ({"raw_text": ""}, False),
    ({"raw_text": "  \n"}, False),
    ({"raw_text": "", "extra": {"finish_reason": "length"}}, False),
    ({"raw_text": "", "label_logprobs": [None, None]}, False),
])
def test_the_stage_caches_only_real_answers_whatever_the_backend(tmp_path, resp, real):
    cache = ResponseCache(tmp_path / "c.sqlite")
    if real:
        fill_cache(prompts(1), lambda: Returns(resp), cache)
        assert len(cache) == 1
    else:
        with pytest.raises(NotAnAnswer, match=r"^models\.scripted \(model 'm'\): empty answer"):
            fill_cache(prompts(1), lambda: Returns(resp), cache)
        assert len(cache) == 0
    assert (why_not_an_answer(Response(qid="q", **resp).to_dict()) is None) == real
