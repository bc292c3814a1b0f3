"""A `batch: true` model through the real graph against the fake Batch API: the answer job killed
(SIGKILL) after it submitted its batch, the batch completing meanwhile, the rerun re-attaching:
one batch, no online request, each prompt billed once."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

from tests.support.batch_server import BatchServer
from tests.support.fixtures_graph import smk_cmd, workdir_from
from tests.support.processes import descendant

pytestmark = pytest.mark.slow


def test_killed_after_submit_then_resumed_bills_each_prompt_once(tmp_path, shared_data, answer_upstream):
    with BatchServer(hold=True) as srv:
        model = {"backend": "openai", "model": "gpt-4o-mini", "mode": "choice", "batch": True,
                 "base_url": srv.base_url, "batch_poll_s": 0.05, "batch_poll_max_s": 0.2}
        tmp_path = workdir_from(answer_upstream, tmp_path / "work", shared_data, {"api": model})
        target = "results/responses/ml/api/attr_genre/zero_shot.jsonl"
        smk = subprocess.Popen(smk_cmd(tmp_path, target), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 300
            while srv.retrieves < 2 and time.monotonic() < deadline:
                assert smk.poll() is None, smk.stdout.read()[-3000:]
                time.sleep(0.05)
            job = descendant(smk.pid, "answer.py")
            job.send_signal(signal.SIGKILL)
            assert smk.wait(timeout=120) != 0
        finally:
            if smk.poll() is None:
                smk.kill()
        assert srv.batches_created == 1 and not (tmp_path / target).exists()

        srv.release()
        rerun = subprocess.run(smk_cmd(tmp_path, target), capture_output=True, text=True)
        assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert (srv.uploads, srv.batches_created, sum(srv.chat_requests.values())) == (1, 1, 0)
    assert len(srv.billed) == 8 and set(srv.billed.values()) == {1}
    summary = json.loads((tmp_path / "results/answers/lrworld/ml/api.json").read_text())
    assert summary["asked"] == 8 and summary["cached"] == 0
    rows = [json.loads(x) for x in (tmp_path / target).read_text().splitlines()]
    assert len(rows) == 8 and all(r["extra"]["batch_id"] == "batch_1" for r in rows)
