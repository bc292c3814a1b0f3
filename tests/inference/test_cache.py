import pytest

from lrworld.inference.stage import answer_prompts
from lrworld.models.base import Response
from lrworld.inference.cache import ResponseCache


class Scripted:
    """A backend that records what it was asked and can die after n answers."""

    def __init__(self, answers, die_after=None):
        self.answers, self.die_after, self.asked = answers, die_after, []

    def identity(self):
        return {"backend": "scripted"}

    def answer(self, items):
        out = []
        for it in items:
            if self.die_after is not None and len(self.asked) >= self.die_after:
                raise RuntimeError("killed")
            self.asked.append(it.qid)
            out.append(Response(qid=it.qid, raw_text=self.answers[it.qid]))
        return out


def prompts(n):
    return [{"qid": f"q{i}", "prompt": f"prompt {i}", "prompt_sha256": str(i), "labels": ["A", "B"],
             "candidates": ["x", "y"], "answer_index": i % 2} for i in range(n)]


def test_killed_run_resumes_without_re_asking(tmp_path):
    answers = {f"q{i}": "AB"[i % 3 % 2] for i in range(10)}
    cache = ResponseCache(tmp_path / "m.sqlite")
    dying = Scripted(answers, die_after=6)
    with pytest.raises(RuntimeError):
        answer_prompts(prompts(10), lambda: dying, cache, chunk_size=4)
    assert len(cache) == 4  # the finished chunk survived; the one in flight did not count
    resumed = Scripted(answers)
    out, info = answer_prompts(prompts(10), lambda: resumed, cache, chunk_size=4)
    assert resumed.asked == [f"q{i}" for i in range(4, 10)]
    assert info["asked"] == 6 and info["cached"] == 4
    clean, _ = answer_prompts(prompts(10), lambda: Scripted(answers), ResponseCache(tmp_path / "n.sqlite"))
    assert [o["parsed"] for o in out] == [o["parsed"] for o in clean]


def test_new_prompts_only_are_asked(tmp_path):
    answers = {f"q{i}": "A" for i in range(12)}
    cache = ResponseCache(tmp_path / "m.sqlite")
    answer_prompts(prompts(8), lambda: Scripted(answers), cache)
    b = Scripted(answers)
    answer_prompts(prompts(12), lambda: b, cache)
    assert b.asked == ["q8", "q9", "q10", "q11"]


def test_garbage_answers_are_missed_not_errors(tmp_path):
    # (an empty answer is not cached at all: tests/faults/test_empty_answers.py)
    answers = {"q0": "C", "q1": "I refuse.", "q2": "\x00\x01", "q3": "B"}
    out, _ = answer_prompts(prompts(4), lambda: Scripted(answers), ResponseCache(tmp_path / "c.sqlite"))
    assert [o["parsed"] for o in out] == [None, None, None, 1]


class Streaming(Scripted):
    """Answers arrive out of order, as from a concurrent API backend, and the stream can break."""

    def answer_iter(self, items):
        for j in reversed(range(len(items))):
            if self.die_after is not None and len(self.asked) >= self.die_after:
                raise RuntimeError("connection lost")
            self.asked.append(items[j].qid)
            yield j, Response(qid=items[j].qid, raw_text=self.answers[items[j].qid])


def test_streamed_answers_are_cached_as_they_arrive(tmp_path):
    answers = {f"q{i}": "AB"[i % 2] for i in range(6)}
    cache = ResponseCache(tmp_path / "s.sqlite")
    with pytest.raises(RuntimeError):
        answer_prompts(prompts(6), lambda: Streaming(answers, die_after=2), cache)
    assert len(cache) == 2
    again = Streaming(answers)
    out, info = answer_prompts(prompts(6), lambda: again, cache)
    assert sorted(again.asked) == ["q0", "q1", "q2", "q3"] and info["asked"] == 4
    assert [o["raw_text"] for o in out] == [answers[f"q{i}"] for i in range(6)]


def test_repeated_samples_of_one_prompt_are_each_asked_and_cached(tmp_path):
    # SRBench asks one prompt T times: each sample is its own answer, none stands in for another
    samples = [{**prompts(1)[0], "qid": f"q0#{s}", "sample": s} for s in range(3)]
    answers = {"q0#0": "A", "q0#1": "B", "q0#2": "A"}
    cache = ResponseCache(tmp_path / "r.sqlite")
    first = Scripted(answers)
    out, info = answer_prompts(samples, lambda: first, cache)
    assert first.asked == ["q0#0", "q0#1", "q0#2"] and info["asked"] == 3 and len(cache) == 3
    assert [o["parsed"] for o in out] == [0, 1, 0]
    again = Scripted(answers)  # a rerun finds every sample cached
    out, info = answer_prompts(samples, lambda: again, cache)
    assert again.asked == [] and info["cached"] == 3 and [o["raw_text"] for o in out] == ["A", "B", "A"]
