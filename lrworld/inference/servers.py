"""Model servers started inside the answer job: vLLM, SGLang, llama.cpp, or any command that serves
an OpenAI-compatible API. An `openai` model entry declares one with `server:` (keys and defaults in
the schema, examples in docs/openai_backend.md):

    with Served(model, cfg, gpus=2, log_path="logs/answer/ds/m.server.log") as served:
        info = fill_cache(prompts, served.backend, cache)

The server starts at the backend's first answer (a job whose prompts are all cached starts none),
on the node the job runs on, in its own process group, recorded under `state_dir` while it runs
(a server that a SIGKILLed job left behind is stopped when the next job for the model starts:
lrworld.inference.server_records); the job waits for its health check,
answers through the `openai` backend, and on leaving the `with` (success, error, or SIGTERM once
`exit_on_sigterm()` is installed) stops the whole group: SIGTERM, then SIGKILL after
`stop_grace_s`. A server that never becomes healthy fails after `startup_timeout_s` with one line
naming the model and the server's last log lines.

Hand-written on top of subprocess because the tools that manage such servers (vLLM's own
launcher, SkyPilot, Ray Serve) each know one engine and a cluster of their own; what a SLURM job
needs is a child process group and a health poll.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator, Sequence

import psutil

from lrworld.core import runlog
from lrworld.core.io import dumps_canonical, sha256_text
from lrworld.core.secrets import REDACTED, redact_argv, secret_env_names, secret_values
from lrworld.inference import server_records, watchdog
from lrworld.models.base import PromptItem, Response
from lrworld.models.registry import capabilities, make_backend, with_defaults

log = logging.getLogger(__name__)

TAIL_LINES = 8


class ServerError(RuntimeError):
    """A managed server failed to start; the message is one line."""


def free_port(host: str) -> int:
    """A port the OS reports free on `host` (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def substitute(arg: str, values: dict[str, str]) -> str:
    """`{port}`, `{host}`, `{gpus}`, `{python}` replaced; other braces left alone (commands carry
    JSON, e.g. vLLM's --override-generation-config '{"temperature": 0}')."""
    for key, value in values.items():
        arg = arg.replace("{" + key + "}", value)
    return arg


def log_tail(path: Path, lines: int = TAIL_LINES, limit: int = 800) -> str:
    """The last non-empty lines of a log on one line, ' | '-separated."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 64 * 1024))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return "(no log)"
    kept = [" ".join(line.split()) for line in text.splitlines() if line.strip()][-lines:]
    out = " | ".join(kept) or "(empty log)"
    return out if len(out) <= limit else "..." + out[-(limit - 3):]


def _group_alive(proc: subprocess.Popen) -> bool:
    proc.poll()  # reap the leader once it exits, or it counts as a member forever
    try:
        os.killpg(proc.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """A second SIGTERM or Ctrl-C while the group is being stopped must not cut the stop short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def stop_group(proc: subprocess.Popen, grace_s: float) -> None:
    """SIGTERM to the server's process group, SIGKILL to what is left after grace_s."""
    with _signals_deferred():
        _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while _group_alive(proc) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _group_alive(proc):
            log.warning("server (process group %d) still running %.0fs after SIGTERM: SIGKILL", proc.pid, grace_s)
            _signal_group(proc, signal.SIGKILL)
        proc.wait()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


@contextlib.contextmanager
def running_server(model: str, server: dict, *, gpus: int = 0, log_path: str | os.PathLike | None = None,
                   state_dir: str | os.PathLike | None = None) -> Iterator[str]:
    """Start `server` (a model entry's `server:` block, schema defaults filled), wait until its
    health check answers 200, yield the OpenAI base URL, stop its process group on exit. With a
    `state_dir`, a server of `model` that a killed job left running is stopped first, and this one
    is recorded there while it runs (lrworld.inference.server_records)."""
    if state_dir is not None:
        server_records.reap_stale(state_dir, model, server["stop_grace_s"])
    host = server["host"]
    port = server["port"] or free_port(host)
    values = {"port": str(port), "host": host, "gpus": str(gpus), "python": sys.executable}
    argv = [substitute(a, values) for a in server["command"]]
    # the child gets no OpenAI key unless the server's `env:` names one: a local server needs none
    env = {**{k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"},
           **{k: substitute(v, values) for k, v in server["env"].items()}}
    netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    with contextlib.ExitStack() as stack:
        if log_path is None:
            log_path = stack.enter_context(tempfile.TemporaryDirectory(prefix="lrworld-server-")) + "/server.log"
        log_path = Path(log_path)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        # 0600: a server may print its command line (and any key on it) into its log
        out = stack.enter_context(os.fdopen(os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb"))
        os.chmod(log_path, 0o600)
        t0 = time.monotonic()
        try:
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env, start_new_session=True)
        except OSError as exc:
            raise ServerError(f"models.{model}: server command {argv[0]!r} could not start: "
                              f"{runlog.redact(str(exc))}") from None
        # the server's output reaches its log through a filter: a server that echoes its arguments
        # (or its environment) must not write the key there
        hidden = secret_values(argv) + [env[k] for k in secret_env_names(server["env"]) if env.get(k)]
        pump = threading.Thread(target=_copy_redacted, args=(proc.stdout, out, hidden), daemon=True)
        pump.start()
        record = None
        # the server dies with the job, even a SIGKILLed one, or the run that holds it
        guard = watchdog.start(proc.pid, server["stop_grace_s"])
        try:
            if state_dir is not None:
                with contextlib.suppress(psutil.Error):  # exited already: _wait_healthy says how, in one line
                    record = server_records.write(state_dir, model, proc.pid)
            _wait_healthy(model, proc, f"http://{netloc}{server['health_path']}", server["startup_timeout_s"], log_path)
            log.info("models.%s: server healthy after %.1fs (pid %d, port %d, log %s)",
                     model, time.monotonic() - t0, proc.pid, port, log_path)
            yield f"http://{netloc}{server['api_path']}"
        finally:
            stop_group(proc, server["stop_grace_s"])
            with contextlib.suppress(subprocess.TimeoutExpired):
                guard.wait(timeout=2 + 2 * watchdog.POLL_S)  # it ends once the group has
            pump.join(timeout=5)  # the rest of the server's output, before the log is closed
            if record is not None:
                record.unlink(missing_ok=True)
            log.info("models.%s: server stopped (exit code %s)", model, proc.returncode)


def _copy_redacted(src, dst, secrets: list[str]) -> None:
    """Copy a server's output line by line to its log, each secret value and environment secret
    replaced by ***."""
    with contextlib.suppress(OSError, ValueError):
        for raw in iter(src.readline, b""):
            line = runlog.redact(raw.decode("utf-8", "replace"))
            for value in secrets:
                line = line.replace(value, "***")
            dst.write(line.encode("utf-8"))
            dst.flush()


def _wait_healthy(model: str, proc: subprocess.Popen, url: str, timeout_s: float, log_path: Path) -> None:
    deadline = time.monotonic() + timeout_s
    delay = 0.1
    while True:
        if proc.poll() is not None:
            raise ServerError(f"models.{model}: server exited with code {proc.returncode} before it became "
                              f"healthy; last log lines: {log_tail(log_path)}")
        if _healthy(url):
            return
        if time.monotonic() >= deadline:
            raise ServerError(f"models.{model}: server not healthy after {timeout_s:g}s (GET {url}); "
                              f"last log lines: {log_tail(log_path)}")
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, 2.0)


def served_identity(identity: dict, server: dict) -> dict:
    """The cache identity of a model behind a managed server: its URL changes every run (a free
    port), so it is replaced by the command that chooses what is served (hashed: a command may
    carry a secret such as vLLM's --api-key)."""
    return {**identity, "base_url": "managed",
            "server_sha256": sha256_text(dumps_canonical(list(server["command"])))[:16]}


def exit_on_sigterm() -> None:
    """SIGTERM or SIGHUP (scancel, a stopped Snakemake, a lost terminal) raise SystemExit in the main
    thread, so `with` blocks unwind and stop their servers; call once at the top of a job script."""
    def handler(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGHUP, handler)


def _secret_part(server: dict) -> dict:
    return {"command": list(server.get("command") or []), "env": dict(server.get("env") or {})}


def planned_command(cfg: dict) -> dict:
    """A model entry as the graph's params carry it: a server command's secret values and its
    `env:` secrets redacted, with the sha256 of the real ones (so a changed key still re-runs the
    job). Snakemake keeps params in .snakemake/metadata; the job takes the real values from the
    config (`real_command`)."""
    server = cfg.get("server")
    if not isinstance(server, dict):
        return cfg
    real = _secret_part(server)
    hidden = set(secret_env_names(real["env"]))
    if not secret_values(real["command"]) and not hidden:
        return cfg
    env = {k: (REDACTED if k in hidden else v) for k, v in real["env"].items()}
    return {**cfg, "server": {**server, "command": redact_argv(real["command"]), "env": env,
                              "secrets_sha256": sha256_text(dumps_canonical(real))}}


def real_command(model: str, planned: dict, config: dict) -> dict:
    """The entry the job runs: the redacted command and env replaced by the config's real ones,
    which must be those the plan saw."""
    server = planned.get("server")
    if not isinstance(server, dict) or "secrets_sha256" not in server:
        return planned
    real = _secret_part(((config.get("models") or {}).get(model) or {}).get("server") or {})
    if sha256_text(dumps_canonical(real)) != server["secrets_sha256"]:
        raise ServerError(f"models.{model}.server: command or env is not what the plan was made with (the config "
                          f"changed while the run was planned); rerun snakemake")
    rest = {k: v for k, v in server.items() if k != "secrets_sha256"}
    return {**planned, "server": {**rest, **real}}


class Served(contextlib.AbstractContextManager):
    """The backend for a model entry, behind its managed server when it declares one."""

    def __init__(self, model: str, cfg: dict, *, gpus: int = 0, log_path: str | os.PathLike | None = None,
                 state_dir: str | os.PathLike | None = None):
        self.model = model
        self.state_dir = state_dir
        self.cfg = with_defaults(cfg) if cfg.get("server") else cfg
        self.gpus = int(gpus or 0)
        self.log_path = log_path
        self._stack = contextlib.ExitStack()
        self._live = None

    def backend(self):
        if not self.cfg.get("server"):
            return make_backend(self.model, self.cfg)
        if not capabilities(self.cfg).managed_server:
            raise ValueError(f"models.{self.model}.server: a managed server needs a backend that answers through "
                             f"one (openai), not {self.cfg.get('backend')!r}")
        return _ManagedBackend(self)

    def start(self):
        """The openai backend on the running server (started on first call)."""
        if self._live is None:
            url = self._stack.enter_context(running_server(self.model, self.cfg["server"], gpus=self.gpus,
                                                           log_path=self.log_path, state_dir=self.state_dir))
            self._live = make_backend(self.model, {**self.cfg, "base_url": url})
        return self._live

    def __enter__(self) -> "Served":
        # before any answer: a job whose prompts are all cached starts no server, but still stops an orphan
        if self.state_dir is not None and self.cfg.get("server"):
            server_records.reap_stale(self.state_dir, self.model, self.cfg["server"]["stop_grace_s"])
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()


class _ManagedBackend:
    def __init__(self, served: Served):
        self._served = served
        # the identity needs no server: built on a placeholder URL, the real one replaced by the command
        offline = make_backend(served.model, {**served.cfg, "base_url": "http://managed.invalid/v1"})
        self._identity = served_identity(offline.identity(), served.cfg["server"])
        self.asks_one_at_a_time = getattr(offline, "asks_one_at_a_time", False)

    def identity(self) -> dict:
        return self._identity

    def answer_iter(self, items: Sequence[PromptItem], **skip) -> Iterator[tuple[int, Response | None]]:
        return self._served.start().answer_iter(items, **skip)

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        return self._served.start().answer(items)
