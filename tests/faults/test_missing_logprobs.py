"""Choice mode against a server that sends no (or NaN) log-probabilities: the
answers fall back to the text, are counted and warned about; a job where none has any fails in one
line; the score carries the count and no NaN (every JSON the project writes is valid)."""

import json
import logging
import math

import pytest

from lrworld.core.io import write_json, write_jsonl
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import collect_responses, fill_cache, summary_line
from lrworld.models.backends.openai import OpenAIBackend
from lrworld.scoring.metrics import score
from tests.support.fault_server import FaultServer, expected_label


def prompts(n):
    return [{"qid": f"q{i}", "prompt": f"Question {i}?\nA. w\nB. x\nC. y\nD. z\nAnswer:",
             "labels": list("ABCD"), "candidates": list("wxyz"), "answer_index": 0, "prompt_sha256": f"h{i}"} for i in range(n)]


def backend(srv):
    return OpenAIBackend("api", {"model": "smol", "base_url": srv.base_url, "mode": "choice", "max_retries": 0,
                                 "concurrency": 2})


@pytest.mark.parametrize("fault", ["no_logprobs", "nan_logprobs"])
def test_some_answers_without_logprobs_are_counted_warned_and_scored_without_nan(tmp_path, caplog, fault):
    ps = prompts(4)
    cache = ResponseCache(tmp_path / "api.sqlite")
    with FaultServer({ps[1]["prompt"]: [fault], ps[3]["prompt"]: [fault]}) as srv:
        with caplog.at_level(logging.WARNING, logger="lrworld"):
            info = fill_cache(ps, lambda: backend(srv), cache)
    assert info["asked"] == 4 and info["logprobs_missing"] == 2
    assert "2 of 4 answers carry no label log-probabilities" in caplog.text
    assert summary_line("api", "d", info).endswith("; no log-probs 2")
    recs = collect_responses(ps, info["identity"], cache)
    # the text fallback still answers: parsed from "A"/"B", the label the server wrote
    assert [r["parsed"] for r in recs] == ["ABCD".index(expected_label(p["prompt"])) for p in ps]
    assert recs[1]["label_logprobs"] in (None, [None] * 4) and recs[0]["label_logprobs"][0] is not None
    s = score(recs, "accuracy", n_slots=4)
    assert s["logprobs_missing"] == 2 and s["label_prior"] is None and s["debiased"] is None
    write_json(tmp_path / "score.json", s)
    json.loads((tmp_path / "score.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))


def test_no_answer_with_logprobs_fails_the_job_in_one_line(tmp_path):
    cache = ResponseCache(tmp_path / "api.sqlite")
    with FaultServer({"*": ["no_logprobs"] * 3}) as srv:
        with pytest.raises(ValueError, match=r"^answer api: mode choice, but none of 3 answers carries label "
                                             r"log-probabilities .* set the model's mode: generate \(modes: generate, choice; "
                                             r"generate parses the option from the reply's text\)$"):
            fill_cache(prompts(3), lambda: backend(srv), cache)


def test_all_logprobs_present_counts_zero(tmp_path):
    cache = ResponseCache(tmp_path / "api.sqlite")
    with FaultServer() as srv:
        info = fill_cache(prompts(3), lambda: backend(srv), cache)
    assert info["logprobs_missing"] == 0 and "no log-probs" not in summary_line("api", "d", info)
    s = score(collect_responses(prompts(3), info["identity"], cache), "accuracy", n_slots=4)
    assert s["logprobs_missing"] == 0 and len(s["label_prior"]) == 4 and all(math.isfinite(x) for x in s["label_prior"])


def test_a_partial_row_gives_no_nan_prior_and_writers_refuse_nan(tmp_path):
    recs = [{"parsed": 0, "answer_index": 0, "label_logprobs": [-0.1, None]},
            {"parsed": 1, "answer_index": 0, "label_logprobs": [-2.0, -0.1]}]
    s = score(recs, "accuracy", n_slots=2)  # old: label_prior [nan, nan]
    assert s["label_prior"] is None and s["logprobs_missing"] == 1
    write_json(tmp_path / "x.json", {"v": float("nan"), "w": [1.5, float("inf")]})  # old: NaN, Infinity
    assert json.loads((tmp_path / "x.json").read_text()) == {"v": None, "w": [1.5, None]}
    write_jsonl(tmp_path / "x.jsonl", [{"v": float("-inf")}])
    assert (tmp_path / "x.jsonl").read_text() == '{"v":null}\n'
