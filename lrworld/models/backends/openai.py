"""The `openai` backend: the OpenAI API or any OpenAI-compatible server (vLLM, llama.cpp) via the
official `openai` client.

- Async (`AsyncOpenAI`) with at most `concurrency` requests in flight.
- Its own retries (the client's are disabled): exponential backoff with jitter on 408/409/429/5xx,
  timeouts, connection errors and bodies that are not a chat completion (truncated JSON, HTML
  error pages); `Retry-After` / `retry-after-ms` honoured; a budget per item (`max_retries`,
  `max_wait_s`) after which the job fails with a one-line `BackendError` naming model and last error.
- Content-filter refusals are answers, not errors: `raw_text=""`, `extra={"refusal": True}`.
- Two modes: `generate` (free text in `raw_text`) and `choice` (one token, the label with the highest
  log-probability among the top-20 alternatives).
- The API key is read from the environment at call time and never stored, logged or returned.

See docs/openai_backend.md.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import math
import mimetypes
import os
import queue
import random
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, Sequence
from urllib.parse import urlsplit, urlunsplit

from lrworld.models.base import PromptItem, Response, in_order
from lrworld.models.registry import Capabilities, declared, filled, register_backend
from lrworld.models.retry import BackendError, RetryPolicy, parse_retry_after

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MODES = ("generate", "choice")
# Statuses worth another try: timeout, lock conflict, too early, rate limit, and any 5xx.
RETRY_STATUSES = {408, 409, 425, 429}


SCHEMA = {
    "model": {"type": "string"},
    "base_url": {"type": "string"},
    "api_key_env": {"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$", "default": "OPENAI_API_KEY"},
    "mode": {"enum": list(MODES), "default": "generate"},
    "system": {"type": "string"},
    "seed": {"type": "integer", "minimum": 0},
    "temperature": {"type": ["number", "null"], "minimum": 0, "maximum": 2, "default": 0.0},
    "max_tokens": {"type": "integer", "minimum": 1, "default": 512},
    "top_logprobs": {"type": "integer", "minimum": 1, "maximum": 20, "default": 20},
    "token_param": {"enum": ["max_tokens", "max_completion_tokens"], "default": "max_tokens"},
    "concurrency": {"type": "integer", "minimum": 1, "maximum": 1024, "default": 8},
    "timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 120.0},  # 0 would fail every request
    "max_retries": {"type": "integer", "minimum": 0, "default": 8},
    "max_wait_s": {"type": "number", "minimum": 0, "default": 600.0},
    "retry_base_s": {"type": "number", "minimum": 0, "default": 1.0},
    "retry_max_delay_s": {"type": "number", "minimum": 0, "default": 60.0},
    # uncached prompts go through the provider's Batch API (files + batches endpoints)
    "batch": {"type": "boolean", "default": False},
    "batch_poll_s": {"type": "number", "exclusiveMinimum": 0, "default": 30},  # first wait between polls
    "batch_poll_max_s": {"type": "number", "exclusiveMinimum": 0, "default": 600},  # grows 1.5x per poll to this
    # a server the answer job starts on its node (lrworld/inference/servers.py, docs/openai_backend.md)
    "server": {
        "type": "object", "additionalProperties": False, "required": ["command"],
        "properties": {
            "command": {"type": "array", "minItems": 1, "items": {"type": "string"}},  # {port} {host} {gpus} {python}
            "host": {"type": "string", "default": "127.0.0.1"},
            "port": {"type": "integer", "minimum": 0, "maximum": 65535, "default": 0},  # 0: a free port
            "health_path": {"type": "string", "pattern": "^/", "default": "/health"},  # GET answers 200 when ready
            "api_path": {"type": "string", "pattern": "^/", "default": "/v1"},
            "startup_timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 900},
            "stop_grace_s": {"type": "number", "minimum": 0, "default": 30},  # SIGTERM, then SIGKILL after this
            "env": {"type": "object", "additionalProperties": {"type": "string"}, "default": {}},
        },
    },
    # the paper's API runs: 4.5-10 h per dataset of ~7.8M prompt tokens (~200-500 tokens/s)
    "throughput_tokens_s": {"type": "number", "exclusiveMinimum": 0, "default": 300},
    "startup_s": {"type": "number", "minimum": 0, "default": 30},
}


def openai_check(cfg: dict) -> str | None:
    if "server" in cfg and "base_url" in cfg:
        return "`server` starts its own endpoint; remove base_url"
    if "server" in cfg and cfg.get("batch"):
        return "batch: true uses the provider's Batch API, which a managed server does not have"
    if "gpus" in cfg and "server" not in cfg:
        return "gpus: is for a managed server (`server:`); an API model runs elsewhere"
    return None


def openai_resources(cfg: dict) -> dict:
    """An API model needs no GPU here; a managed server gets the GPUs its entry asks for
    (`gpus:`, substituted as {gpus} in its command, e.g. vLLM's tensor parallelism)."""
    return declared({**cfg, "gpus": cfg.get("gpus", 0) if cfg.get("server") else 0})

_RETRY, _REFUSAL, _FATAL = "retry", "refusal", "fatal"


class _BadBody(Exception):
    """The server answered 2xx but not with a chat completion."""


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def public_url(url: str | None) -> str:
    """The base URL without credentials, query or fragment (safe to log and to hash)."""
    if not url:
        return DEFAULT_BASE_URL
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def _number(cfg: dict, key: str, kind=float):
    value = cfg.get(key)
    try:
        return kind(value) if value is not None else None
    except (TypeError, ValueError):
        raise ValueError(f"openai backend: {key}={value!r} is not a {kind.__name__}") from None


@register_backend("openai", schema=SCHEMA, resources=openai_resources, check=openai_check,
                  can=Capabilities(managed_server=True, priced=True, reads_images=True))
class OpenAIBackend:
    """`OpenAIBackend(name, cfg)`; cfg is the model's entry in config.yaml (see docs/openai_backend.md).

    `sleep` (async), `clock` (wall time, for HTTP-date Retry-After) and `rng` are injectable for tests.
    """

    def __init__(
        self,
        name: str,
        cfg: dict,
        *,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ):
        cfg = filled(cfg, SCHEMA)  # defaults live in SCHEMA only (also when built outside the graph)
        self.name = name
        self.model = str(cfg.get("model") or name)
        self.base_url = cfg.get("base_url") or None
        self.api_key_env = str(cfg["api_key_env"])
        self.mode = str(cfg["mode"])
        if self.mode not in MODES:
            raise ValueError(f"models.{name}.mode: {self.mode!r}; choose one of {list(MODES)}")
        self.temperature = _number(cfg, "temperature")
        if self.mode == "choice":
            self.max_tokens = 1
            self.top_logprobs = _number(cfg, "top_logprobs", int)
            if not 1 <= self.top_logprobs <= 20:
                raise ValueError(f"models.{name}.top_logprobs must be in 1..20, got {self.top_logprobs}")
        else:
            self.max_tokens = _number(cfg, "max_tokens", int)
            self.top_logprobs = None
        # newer OpenAI models take max_completion_tokens instead of max_tokens
        self.token_param = str(cfg["token_param"])
        if self.token_param not in ("max_tokens", "max_completion_tokens"):
            raise ValueError(f"models.{name}.token_param: {self.token_param!r}; "
                             "choose max_tokens or max_completion_tokens")
        self.system = cfg.get("system") or None
        self.seed = _number(cfg, "seed", int)
        self.concurrency = _number(cfg, "concurrency", int)
        if self.concurrency < 1:
            raise ValueError(f"models.{name}.concurrency must be >= 1")
        self.timeout_s = _number(cfg, "timeout_s")
        self.policy = RetryPolicy(
            max_retries=_number(cfg, "max_retries", int),
            max_wait_s=_number(cfg, "max_wait_s"),
            base_delay_s=_number(cfg, "retry_base_s"),
            max_delay_s=_number(cfg, "retry_max_delay_s"),
        )
        # batch: true sends the uncached prompts through the Batch API (lrworld.models.batch_api);
        # batch_store is the SQLite file that remembers open batches (the answer job sets it)
        self.batch = bool(cfg["batch"])
        if self.batch:
            self.batch_store = cfg.get("batch_store")
            self.batch_poll_s = _number(cfg, "batch_poll_s")
            self.batch_poll_max_s = _number(cfg, "batch_poll_max_s")
        self._sleep = sleep or asyncio.sleep
        self._clock = clock or time.time
        self._rng = rng or random.Random()

    def __repr__(self) -> str:
        return f"OpenAIBackend(name={self.name!r}, model={self.model!r}, base_url={public_url(self.base_url)!r}, mode={self.mode!r})"

    # -- identity -----------------------------------------------------------------------------

    def identity(self) -> dict:
        return {
            "backend": "openai",
            "model": self.model,
            "base_url": public_url(self.base_url),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "mode": self.mode,
            "top_logprobs": self.top_logprobs,
            "system_sha256": hashlib.sha256(self.system.encode()).hexdigest()[:16] if self.system else None,
            "seed": self.seed,
        }

    # -- public API -----------------------------------------------------------------------------

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        """All answers, in input order. Raises BackendError when an item exhausts its retry budget."""
        return in_order(items, self.answer_iter(items))

    @property
    def asks_one_at_a_time(self) -> bool:
        """`answer_iter` takes `skip`: online requests go one by one (a batch goes at once)."""
        return not self.batch

    def answer_iter(self, items: Sequence[PromptItem],
                    skip: Callable[[int], bool] | None = None) -> Iterator[tuple[int, Response | None]]:
        """Yield (index into items, Response) as each completes, so the caller can persist each
        answer at once. On a fatal error everything already finished is yielded first, the
        outstanding requests are cancelled and BackendError is raised. Closing the generator early
        cancels the outstanding requests. With `batch: true`, through the Batch API. `skip(i)`,
        called just before request i would go (from the backend's own thread): True sends nothing
        and yields (i, None)."""
        if self.batch:
            from lrworld.models import batch_api

            return batch_api.answer_iter(self, items)
        return self.online_iter(items, skip)

    def online_iter(self, items: Sequence[PromptItem],
                    skip: Callable[[int], bool] | None = None) -> Iterator[tuple[int, Response | None]]:
        items = list(items)
        if not items:
            return
        api_key = self.resolved_api_key()  # fail before starting anything
        results: queue.Queue = queue.Queue()
        started = threading.Event()
        state: dict[str, Any] = {}

        def run() -> None:
            loop = asyncio.new_event_loop()
            try:
                state["loop"] = loop
                state["task"] = loop.create_task(self._run_all(items, api_key, results.put, skip))
                started.set()
                loop.run_until_complete(state["task"])
            except asyncio.CancelledError:
                pass
            except BaseException as exc:  # noqa: BLE001 - handed to the consumer thread
                results.put(("error", exc))
            finally:
                started.set()
                loop.close()
                results.put(("done", None))

        thread = threading.Thread(target=run, name=f"openai-{self.name}", daemon=True)
        thread.start()
        started.wait()
        try:
            while True:
                kind, payload = results.get()
                if kind == "done":
                    return
                if kind == "error":
                    raise payload
                yield payload
        finally:
            loop, task = state.get("loop"), state.get("task")
            if thread.is_alive() and loop is not None and task is not None:
                try:
                    loop.call_soon_threadsafe(task.cancel)
                except RuntimeError:  # loop already closed
                    pass
            thread.join()

    # -- internals ------------------------------------------------------------------------------

    def resolved_api_key(self) -> str:
        if self.base_url and _loopback(self.base_url) and self.api_key_env == "OPENAI_API_KEY":
            # a local server (managed, or base_url on this host) is not sent the real OpenAI key;
            # name another variable in api_key_env for one that checks a key of its own
            return "EMPTY"
        key = os.environ.get(self.api_key_env)
        if key:
            return key
        if self.base_url:
            return "EMPTY"  # local OpenAI-compatible servers accept any key
        raise BackendError(
            f"models.{self.name}: environment variable {self.api_key_env} is not set "
            f"(the API key is read only from the environment; set base_url for a local server)")

    def _client(self, api_key: str):
        from openai import AsyncOpenAI

        return AsyncOpenAI(api_key=api_key, base_url=self.base_url or None, timeout=self.timeout_s, max_retries=0)

    async def _run_all(self, items: list[PromptItem], api_key: str, emit: Callable[[tuple], None],
                       skip: Callable[[int], bool] | None = None) -> None:
        client = self._client(api_key)
        sem = asyncio.Semaphore(self.concurrency)

        async def one(i: int, item: PromptItem) -> tuple[int, Response | None]:
            # The slot is held through the backoff sleeps: a rate-limited item keeps its place instead
            # of letting fresh items hammer a server that has just asked everyone to wait.
            async with sem:
                if skip is not None and skip(i):
                    return i, None
                return i, await self._attempts(client, item, api_key)

        tasks = [asyncio.ensure_future(one(i, item)) for i, item in enumerate(items)]
        try:
            for fut in asyncio.as_completed(tasks):
                emit(("item", await fut))
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await client.close()

    def _messages(self, item: PromptItem) -> list[dict]:
        messages: list[dict] = []
        if self.system:
            messages.append({"role": "system", "content": self.system})
        if item.image_paths:
            parts: list[dict] = [{"type": "text", "text": item.prompt}]
            parts += [{"type": "image_url", "image_url": {"url": image_data_url(p)}} for p in item.image_paths]
            messages.append({"role": "user", "content": parts})
        else:
            messages.append({"role": "user", "content": item.prompt})
        return messages

    def request_body(self, item: PromptItem) -> dict:
        req: dict[str, Any] = {"model": self.model, "messages": self._messages(item)}
        if self.temperature is not None:  # `temperature: null` omits it (models that reject it)
            req["temperature"] = self.temperature
        if self.max_tokens is not None:
            req[self.token_param] = self.max_tokens
        if self.mode == "choice":
            req["logprobs"] = True
            req["top_logprobs"] = self.top_logprobs
        if self.seed is not None:
            req["seed"] = self.seed
        return req

    async def _attempts(self, client, item: PromptItem, api_key: str) -> Response:
        request = self.request_body(item)
        where = f"models.{self.name} (model {self.model!r}), question {item.qid}"
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            t0 = time.perf_counter()
            try:
                completion = await client.chat.completions.create(**request)
                _check_completion(completion, self.mode)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                latency = time.perf_counter() - t0
                verdict, why, headers = _classify(exc, self.timeout_s)
                why = _redact(why, api_key)
            else:
                return self.to_response(item, completion, time.perf_counter() - t0, attempt)
            if verdict == _REFUSAL:
                return Response(qid=item.qid, raw_text="", latency_s=latency,
                                extra={"refusal": True, "attempts": attempt, "reason": why})
            if verdict == _FATAL:
                raise BackendError(f"{where}: non-retryable error on attempt {attempt}: {why}")
            if attempt > self.policy.max_retries:
                raise BackendError(f"{where}: gave up after {attempt} attempts "
                                   f"(max_retries={self.policy.max_retries}); last error: {why}")
            retry_after = parse_retry_after(headers, self._clock)
            delay = self.policy.delay(attempt, retry_after, self._rng)
            if waited + delay > self.policy.max_wait_s:
                asked = f"Retry-After {retry_after:g}s" if retry_after is not None else f"backoff {delay:.1f}s"
                raise BackendError(f"{where}: gave up after {attempt} attempts, {asked} would exceed "
                                   f"max_wait_s={self.policy.max_wait_s:g} (waited {waited:.1f}s); last error: {why}")
            log.info("%s: attempt %d failed (%s); retrying in %.2fs", where, attempt, why, delay)
            await self._sleep(delay)
            waited += delay

    def to_response(self, item: PromptItem, completion, latency: float, attempts: int) -> Response:
        choice = completion.choices[0]
        usage = getattr(completion, "usage", None)
        resp = Response(
            qid=item.qid,
            raw_text="",
            tokens_in=getattr(usage, "prompt_tokens", None),
            tokens_out=getattr(usage, "completion_tokens", None),
            latency_s=latency,
            served_model=getattr(completion, "model", None),
            system_fingerprint=getattr(completion, "system_fingerprint", None),
            extra={"attempts": attempts, "finish_reason": getattr(choice, "finish_reason", None)},
        )
        message = getattr(choice, "message", None)
        if getattr(choice, "finish_reason", None) == "content_filter" or getattr(message, "refusal", None):
            resp.extra["refusal"] = True
            return resp
        text = (getattr(message, "content", None) or "") if message is not None else ""
        resp.raw_text = text
        if self.mode == "choice":
            scores = label_scores(item.labels, _top_logprobs(choice))
            resp.label_logprobs = scores
            present = [(s, i) for i, s in enumerate(scores) if s is not None]
            if present:
                resp.choice_index = max(present, key=lambda p: (p[0], -p[1]))[1]
            else:
                resp.extra["no_label_in_top_logprobs"] = True
        return resp


# -- helpers (module level so tests can use them directly) ---------------------------------------


def image_data_url(path: str | os.PathLike) -> str:
    mime = mimetypes.guess_type(str(path))[0] or "application/octet-stream"
    return f"data:{mime};base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def _top_logprobs(choice) -> list[tuple[str, float]]:
    lp = getattr(choice, "logprobs", None)
    content = getattr(lp, "content", None) if lp is not None else None
    if not content:
        return []
    first = content[0]
    alternatives = list(getattr(first, "top_logprobs", None) or [])
    pairs = [(getattr(t, "token", None), getattr(t, "logprob", None)) for t in alternatives]
    if not pairs:  # a server that returns only the sampled token
        pairs = [(getattr(first, "token", None), getattr(first, "logprob", None))]
    return [(tok, float(lp)) for tok, lp in pairs if isinstance(tok, str) and isinstance(lp, (int, float))]


def label_scores(labels: Sequence[str], top: list[tuple[str, float]]) -> list[float | None]:
    """Per label, the highest log-probability of a top token equal to it once surrounding
    whitespace is removed (" B" and "B" both count for B); None when the label is not among them."""
    wanted = {str(label).strip(): i for i, label in enumerate(labels)}
    best: list[float | None] = [None] * len(labels)
    for token, logprob in top:
        i = wanted.get(token.strip())
        if i is not None and math.isfinite(logprob) and (best[i] is None or logprob > best[i]):
            best[i] = logprob
    return best


def _check_completion(completion, mode: str) -> None:
    """Raise _BadBody (retried) unless the body holds an answer: text, a refusal the API flagged,
    or (choice mode) log-probabilities. A 200 with `content: null`, or an empty reply cut by
    `finish_reason: length`, is a server fault, not the model's answer."""
    if isinstance(completion, (str, bytes)):
        snippet = _one_line(completion if isinstance(completion, str) else completion.decode("utf-8", "replace"), 80)
        raise _BadBody(f"non-JSON body: {snippet!r}")
    if not getattr(completion, "choices", None):
        raise _BadBody("JSON body without choices")
    choice = completion.choices[0]
    finish = getattr(choice, "finish_reason", None)
    message = getattr(choice, "message", None)
    if finish == "content_filter" or getattr(message, "refusal", None):
        return
    if mode == "choice" and _top_logprobs(choice):
        return
    content = getattr(message, "content", None) if message is not None else None
    if content is None:
        raise _BadBody(f"HTTP 200 with content: null (finish_reason {finish!r})")
    if not str(content).strip():
        raise _BadBody(f"empty reply (finish_reason {finish!r})")


def _redact(text: str, secret: str) -> str:
    if secret and len(secret) >= 6 and secret != "EMPTY":
        text = text.replace(secret, "***")
    return text


def _classify(exc: BaseException, timeout_s: float) -> tuple[str, str, Any]:
    """(verdict, one-line reason, response headers or None)."""
    import openai

    if isinstance(exc, _BadBody):
        return _RETRY, str(exc), None
    if isinstance(exc, json.JSONDecodeError):
        return _RETRY, f"truncated or invalid JSON body ({exc.msg} at char {exc.pos})", None
    if isinstance(exc, openai.APITimeoutError):
        return _RETRY, f"timeout after {timeout_s:g}s", None
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f"{type(cause).__name__}: {cause}" if cause else str(exc)
        return _RETRY, _one_line(f"connection error ({detail})"), None
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        why = _one_line(f"HTTP {status} {type(exc).__name__}: {getattr(exc, 'message', '') or exc}")
        if status == 400 and _is_content_filter(exc):
            return _REFUSAL, why, None
        headers = getattr(exc.response, "headers", None)
        if status in RETRY_STATUSES or status >= 500:
            return _RETRY, why, headers
        return _FATAL, why, headers
    if isinstance(exc, openai.APIResponseValidationError):
        return _RETRY, _one_line(f"invalid response body: {exc}"), None
    if isinstance(exc, ValueError):  # e.g. a body that does not decode as UTF-8
        return _RETRY, _one_line(f"malformed response ({type(exc).__name__}: {exc})"), None
    return _FATAL, _one_line(f"{type(exc).__name__}: {exc}"), None


def _is_content_filter(exc) -> bool:
    if getattr(exc, "code", None) == "content_filter":
        return True
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("innererror")
        if isinstance(inner, dict) and inner.get("code") in ("ResponsibleAIPolicyViolation", "content_filter"):
            return True
    return False


def _loopback(url: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").strip("[]")
    if host == "localhost" or host.endswith(".invalid"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
