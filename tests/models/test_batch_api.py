"""The openai backend's Batch API path (`batch: true`) against a local fake of the files and batches
endpoints: answers, a job killed between submit and completion (and one stopped while filling the
cache) re-attaching instead of re-submitting, per-line errors through the online path, expired
batches, poll backoff."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lrworld.models.registry import with_defaults
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache
from lrworld.models import batch_api
from lrworld.models import PromptItem, make_backend
from lrworld.models.retry import BackendError
from tests.support.batch_server import BatchServer
from tests.support.fault_server import expected_label

ROOT = Path(__file__).resolve().parents[2]
LABELS = ("A", "B", "C", "D")
PROMPTS = [{"qid": f"q{i}", "prompt": f"Question {i}: which item next?", "labels": list(LABELS)} for i in range(6)]


def cfg(srv: BatchServer, store: Path, **kw) -> dict:
    base = with_defaults({"backend": "openai", "model": "gpt-4o-mini", "mode": "choice", "batch": True,
                           "base_url": srv.base_url, "timeout_s": 10, "max_retries": 2})
    return {**base, "batch_store": str(store), "batch_poll_s": 0.01, "batch_poll_max_s": 0.05, **kw}


def items(prompts=PROMPTS) -> list[PromptItem]:
    return [PromptItem(qid=p["qid"], prompt=p["prompt"], labels=tuple(p["labels"])) for p in prompts]


@pytest.fixture
def fake():
    with BatchServer() as srv:
        yield srv


def test_batch_answers_are_the_online_answers(tmp_path, fake):
    out = make_backend("m", cfg(fake, tmp_path / "c.sqlite")).answer(items())
    assert [LABELS[r.choice_index] for r in out] == [expected_label(p["prompt"]) for p in PROMPTS]
    assert all(r.extra["batch_id"] == "batch_1" and r.tokens_in > 0 and r.served_model == "gpt-4o-mini" for r in out)
    assert (fake.uploads, fake.batches_created, sum(fake.chat_requests.values())) == (1, 1, 0)
    assert sorted(fake.submitted.values()) == [1] * 6
    # the request is the online one: same body, so the same custom_id as _request gives
    b = make_backend("m", cfg(fake, tmp_path / "c.sqlite"))
    assert set(fake.submitted) == {batch_api.custom_id(b.request_body(it)) for it in items()}


def test_schema_defaults_and_a_missing_store():
    entry = with_defaults({"backend": "openai", "batch": True})
    assert (entry["batch_poll_s"], entry["batch_poll_max_s"]) == (30, 600)
    with pytest.raises(BackendError, match=r"^models.m: batch: true needs a batch store"):
        make_backend("m", {**entry, "base_url": "http://127.0.0.1:9/v1"}).answer(items()[:1])


def test_killed_between_submit_and_completion_re_attaches_and_bills_each_prompt_once(tmp_path):
    store = tmp_path / "cache" / "m.sqlite"
    with BatchServer(hold=True) as srv:
        job = tmp_path / "job.py"
        job.write_text(textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {str(ROOT)!r})
            from lrworld.inference.cache import ResponseCache
            from lrworld.inference.stage import fill_cache
            from lrworld.models import make_backend
            cache = ResponseCache({str(store)!r})
            fill_cache({PROMPTS!r}, lambda: make_backend("m", {cfg(srv, store)!r}), cache)
        """))
        proc = subprocess.Popen([sys.executable, str(job)])
        try:
            deadline = time.monotonic() + 300
            while srv.retrieves < 3 and time.monotonic() < deadline:  # submitted, and polling
                assert proc.poll() is None
                time.sleep(0.02)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
        finally:
            proc.kill()
        assert srv.batches_created == 1
        cache = ResponseCache(store)
        assert len(cache) == 0
        srv.release()
        info = fill_cache(PROMPTS, lambda: make_backend("m", cfg(srv, store)), cache)
        assert info["asked"] == 6 and len(cache) == 6
        assert (srv.uploads, srv.batches_created, sum(srv.chat_requests.values())) == (1, 1, 0)
        assert sorted(srv.billed.values()) == [1] * 6 and sorted(srv.prompts_submitted.values()) == [1] * 6
        # a third run finds everything cached and sends nothing
        before = srv.retrieves
        assert fill_cache(PROMPTS, lambda: make_backend("m", cfg(srv, store)), cache)["asked"] == 0
        assert (srv.batches_created, srv.retrieves) == (1, before)


def test_stopped_while_filling_the_cache_takes_the_rest_from_the_same_batch(tmp_path, fake):
    store = tmp_path / "m.sqlite"
    cache = ResponseCache(store)
    backend = make_backend("m", cfg(fake, store))
    it = backend.answer_iter(items())
    for _ in range(2):
        next(it)
    it.close()  # the job dies after caching two answers
    assert fake.batches_created == 1
    out = make_backend("m", cfg(fake, store)).answer(items())
    assert fake.batches_created == 1 and sum(fake.chat_requests.values()) == 0
    assert [LABELS[r.choice_index] for r in out] == [expected_label(p["prompt"]) for p in PROMPTS]
    # consumed now: the same prompts asked again are a new batch (the cache, not the store, prevents that)
    make_backend("m", cfg(fake, store)).answer(items()[:1])
    assert fake.batches_created == 2
    cache.close()


def test_failed_lines_go_through_the_online_path(tmp_path):
    failed, bad = PROMPTS[1]["prompt"], PROMPTS[4]["prompt"]
    with BatchServer(fail_prompts={failed}, bad_body_prompts={bad}) as srv:
        out = make_backend("m", cfg(srv, tmp_path / "c.sqlite")).answer(items())
    assert [LABELS[r.choice_index] for r in out] == [expected_label(p["prompt"]) for p in PROMPTS]
    assert srv.chat_requests == {failed: 1, bad: 1}
    assert ["batch_id" in r.extra for r in out] == [True, False, True, True, False, True]
    # a failed line is not billed; a 200 line with a broken body is, and its prompt is asked again
    assert {p["prompt"]: srv.billed[p["prompt"]] for p in PROMPTS} == {
        p["prompt"]: 1 for p in PROMPTS if p["prompt"] != bad} | {bad: 2}


def test_an_expired_batch_keeps_its_answers_and_asks_the_rest(tmp_path):
    with BatchServer(expire=True, expire_after=4) as srv:
        out = make_backend("m", cfg(srv, tmp_path / "c.sqlite")).answer(items())
    assert [LABELS[r.choice_index] for r in out] == [expected_label(p["prompt"]) for p in PROMPTS]
    assert sum(srv.chat_requests.values()) == 2 and sorted(srv.billed.values()) == [1] * 6


def test_polls_back_off(tmp_path, monkeypatch):
    delays = []
    with BatchServer(hold=True) as srv:
        def sleep(d):
            delays.append(d)
            if len(delays) == 5:
                srv.release()

        monkeypatch.setattr(batch_api, "_sleep", sleep)
        make_backend("m", cfg(srv, tmp_path / "c.sqlite", batch_poll_s=1.0, batch_poll_max_s=3.0)).answer(items())
    assert delays == pytest.approx([1.0, 1.5, 2.25, 3.0, 3.0])
    assert srv.retrieves == 6


def test_a_truncated_output_line_caches_the_good_lines_and_fails_in_one_line(tmp_path, fake):
    """A truncated output line must not become a JSONDecodeError traceback on every rerun, caching nothing."""
    store = tmp_path / "m.sqlite"
    cache = ResponseCache(store)
    fake.truncate_output_line(3)
    with pytest.raises(BackendError, match=r"^models\.m: batch batch_1 file file-2 line 3: not valid JSON "
                                           r"\(.*\); the good lines are cached, rerun to ask the rest again$"):
        fill_cache(PROMPTS, lambda: make_backend("m", cfg(fake, store)), cache)
    assert len(cache) == 5 and sum(fake.chat_requests.values()) == 0
    fake.truncate_output_line(0)
    info = fill_cache(PROMPTS, lambda: make_backend("m", cfg(fake, store)), cache)
    assert (info["asked"], info["cached"], fake.batches_created) == (1, 5, 2)
    assert sorted(fake.submitted.values()) == [1] * 5 + [2]  # only the cut one is asked again


class Killed(Exception):
    pass


def killed_at_first_poll(srv: BatchServer, store: Path, monkeypatch) -> None:
    """A job that submits its batch and dies at its first poll wait; later polls do not wait."""
    def killed(_s):
        raise Killed

    monkeypatch.setattr(batch_api, "_sleep", killed)
    with pytest.raises(Killed):
        make_backend("m", cfg(srv, store)).answer(items())
    monkeypatch.setattr(batch_api, "_sleep", lambda s: None)


def test_lost_local_batch_state_re_attaches_by_metadata_instead_of_submitting_again(tmp_path, caplog, monkeypatch):
    """A lost store must not re-submit every request (billed twice, one INFO line)."""
    store = tmp_path / "m.sqlite"
    with BatchServer(hold=True) as srv:
        killed_at_first_poll(srv, store, monkeypatch)
        assert srv.batches_created == 1
        for f in tmp_path.glob("m.sqlite*"):  # the local state is lost
            f.unlink()
        srv.release()
        caplog.set_level("WARNING")
        other = make_backend("other", cfg(srv, tmp_path / "o.sqlite")).answer(items()[:1])  # another model's batch
        out = make_backend("m", cfg(srv, store)).answer(items())
    assert srv.batches_created == 2 and len(other) == 1  # "m" adopted batch_1; "other" did not
    assert sorted(srv.submitted.values()) == [1] * 5 + [2]  # q0 once for m, once for other
    assert [LABELS[r.choice_index] for r in out] == [expected_label(p["prompt"]) for p in PROMPTS]
    assert all(r.extra["batch_id"] == "batch_1" for r in out) and sum(srv.chat_requests.values()) == 0
    assert "batch batch_1 at the provider holds 6 of these requests but was not in the local store" in caplog.text


def _tamper_unknown_id(db) -> None:
    for table in ("batches", "batch_requests"):
        db.execute(f"UPDATE {table} SET batch_id = 'batch_edited'")


def _tamper_rows_deleted(db) -> None:
    db.execute("DELETE FROM batch_requests")


@pytest.mark.parametrize("tamper, named", [(_tamper_unknown_id, "batch_edited"), (_tamper_rows_deleted, None)],
                         ids=["batch-id-rewritten-to-an-unknown-id", "request-rows-deleted-batch-row-kept"])
def test_a_tampered_store_is_reconciled_with_the_provider_and_bills_nothing_again(tmp_path, caplog, monkeypatch,
                                                                                  tamper, named):
    """The store disagrees with the provider's listing (an unknown batch id; no request rows under
    a batch row it keeps): the requests batch_1 holds are re-attached, not asked or submitted again."""
    import sqlite3

    store = tmp_path / "m.sqlite"
    with BatchServer(hold=True) as srv:
        killed_at_first_poll(srv, store, monkeypatch)
        db = sqlite3.connect(store)
        with db:
            tamper(db)
        db.close()
        srv.release()
        caplog.set_level("WARNING")
        out = make_backend("m", cfg(srv, store)).answer(items())
    assert [LABELS[r.choice_index] for r in out] == [expected_label(p["prompt"]) for p in PROMPTS]
    assert (srv.uploads, srv.batches_created, sum(srv.chat_requests.values())) == (1, 1, 0)
    assert sorted(srv.billed.values()) == [1] * 6 and all(r.extra["batch_id"] == "batch_1" for r in out)
    assert "batch batch_1 at the provider holds 6 of these requests but was not in the local store" in caplog.text
    if named:
        assert f"batch {named} of the local store {store} is unknown to the provider" in caplog.text
