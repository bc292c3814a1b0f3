"""Progress of long loops (lrworld/core/progress.py) and the answer job's summary: in a log (no
terminal), tqdm's text arrives as periodic lines with count, rate and ETA, and once at the end."""

import logging
import re
import time

import pytest
from tqdm import std as tqdm_std

from lrworld.core import progress
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache, summary_line
from lrworld.models.base import Response

# tqdm's meter: "12/300 [00:04<01:30, 3.20prompt/s, 45 tok/s]" (elapsed<ETA, rate; s/prompt when slow)
METER = re.compile(r"(\d+)/(\d+) \[([\d:]+)<([\d:]+|\?), +([\d.]+|\?)(?:prompt/s|s/prompt)(?:, (\d+) tok/s)?\]")


def lines(caplog, name):
    return [r.getMessage() for r in caplog.records if r.name == name]


class Clock:
    """A fake clock for tqdm and the log sink: the tests count steps and seconds, not the machine's speed."""

    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t

    def sleep(self, s):
        self.t += s


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(tqdm_std, "time", c)
    monkeypatch.setattr(progress.time, "monotonic", c)
    return c


def test_lines_come_at_each_step_or_period_and_at_the_end(caplog, clock):
    log = logging.getLogger("test.progress")
    caplog.set_level(logging.INFO, logger="test.progress")
    with progress.bar(200, "work", "prompt", log, every_s=3600, step=0.25) as b:
        for _ in range(200):
            clock.sleep(0.012)  # 2.4 s in all: a refresh a second, a line per 25% crossed
            b.update(1)
    got = lines(caplog, "test.progress")
    counts = [int(METER.search(s).group(1)) for s in got]
    # refreshes at 1.0 s (n=84: the first quarter crossed) and 2.0 s (n=168: the third), then the end
    assert counts == [84, 168, 200]
    assert all(s.startswith("work:") and "%|" in s for s in got)


def test_a_period_line_comes_without_a_step(caplog, clock):
    log = logging.getLogger("test.period")
    caplog.set_level(logging.INFO, logger="test.period")
    b = progress.bar(10_000, "slow", "prompt", log, every_s=0.5, step=1.0)
    for _ in range(3):
        clock.sleep(1.05)
        b.update(1)
    got = lines(caplog, "test.period")
    assert [METER.search(s).group(1) for s in got] == ["1", "2", "3"]  # one a period, no share crossed
    assert all(METER.search(s).group(2) == "10000" for s in got)
    b.close()
    assert METER.search(lines(caplog, "test.period")[-1]).group(1) == "3"  # the early end is logged


class Slow:
    """A backend with token counts and a pause per batch, like a real model."""

    name = "slow"

    def identity(self):
        return {"backend": "slow"}

    def answer(self, items):
        time.sleep(0.4)
        return [Response(qid=it.qid, raw_text="B" if int(it.qid[1:]) % 3 else "no idea", tokens_in=100, tokens_out=2)
                for it in items]


def prompts(n):
    return [{"qid": f"q{i}", "prompt": f"prompt {i}", "labels": ["A", "B"], "candidates": ["x", "y"]} for i in range(n)]


def test_the_answer_stage_shows_rates_and_ends_with_one_summary(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="lrworld.inference.stage")
    cache = ResponseCache(tmp_path / "m.sqlite")
    fill_cache(prompts(8), Slow, cache, chunk_size=4)  # 8 answered before: cached below
    caplog.clear()
    info = fill_cache(prompts(24) + prompts(2), Slow, cache, chunk_size=4, desc="answer slow")
    assert (info["prompts"], info["distinct"], info["asked"], info["cached"]) == (26, 24, 16, 8)
    assert info["missed"] == 8  # q0, q3, ... q21 answer "no idea", cached ones included
    assert (info["tokens_in"], info["tokens_out"]) == (1600, 32)  # of the 16 asked
    assert info["wall_s"] >= 1.6  # 4 pauses of 0.4 s; no upper bound: a loaded machine is slower
    got = [s for s in lines(caplog, "lrworld.inference.stage") if s.startswith("answer slow:")]
    assert got, lines(caplog, "lrworld.inference.stage")
    last = METER.search(got[-1])
    assert last.group(1) == last.group(2) == "16" and float(last.group(5)) > 0 and int(last.group(6)) > 0
    line = summary_line("slow", "lrworld/ml", info)
    assert line.startswith("answer slow lrworld/ml: 26 prompts (24 distinct): asked 16, cached 8, missed 8; "
                           "tokens 1600 in, 32 out (asked prompts); wall ")
    assert line.endswith(" prompts/s")


def test_nothing_to_ask_logs_no_progress_line(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="lrworld.inference.stage")
    cache = ResponseCache(tmp_path / "m.sqlite")
    fill_cache(prompts(4), Slow, cache)
    caplog.clear()
    info = fill_cache(prompts(4), Slow, cache)
    assert info["asked"] == 0 and info["tokens_in"] == 0
    assert not [s for s in lines(caplog, "lrworld.inference.stage") if "prompt/s" in s]
    assert "asked 0, cached 4" in summary_line("slow", "lrworld/ml", info)
