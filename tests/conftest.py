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
