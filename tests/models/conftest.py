"""Fixtures for the openai backend: a fault-injecting server, a real llama.cpp server, a fake sleep."""

from __future__ import annotations

import pytest

from tests.support.fault_server import FaultServer


class SleepRecorder:
    """An async sleep that records the requested delays and returns at once."""

    def __init__(self):
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def fake_sleep() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def fault_server():
    """Factory: fault_server(script=..., **kw) -> a started FaultServer, stopped after the test."""
    started: list[FaultServer] = []

    def make(script=None, **kw) -> FaultServer:
        srv = FaultServer(script, **kw).start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        srv.stop()


@pytest.fixture(scope="session")
def llama_url():
    """The OpenAI base URL of a real llama.cpp server with SmolLM2-135M (started once per session)."""
    pytest.importorskip("xllamacpp")
    from tests.support.llama_server import llama_server, smollm2_gguf

    try:
        gguf = smollm2_gguf()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    with llama_server(gguf, n_ctx=2048, n_parallel=1, n_threads=1, cache_prompt=False, alias="smollm2") as url:
        yield url
