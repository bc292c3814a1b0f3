"""A fault-injecting OpenAI-compatible chat-completions server on 127.0.0.1 (stdlib only).

Each request is keyed by its prompt (the text of the last user message) and by how many requests
with that prompt came before (`attempt`, 0-based). A plan decides what that attempt gets:

    with FaultServer(script={"q1 prompt": ["429:2", "500", "ok"]}) as srv:   # per prompt
        ... base_url=srv.base_url ...
    srv.requests["q1 prompt"] == 3 and srv.answered["q1 prompt"] == 1

`script` keys are exact prompt texts, or "*" for every prompt; attempts past the end of a list are
"ok". `fault_rate` adds seeded random faults (deterministic per prompt and attempt) on the first
`max_faulty_attempts` attempts of each prompt, for load tests.

Fault specs (`kind` or `kind:arg`):
  ok                  a valid chat completion (deterministic answer, see `expected_label`)
  late:s              the same, sent after s seconds (a slow model)
  429[:s]             rate limited, `Retry-After: s` (default 1)
  429_ms:ms           rate limited, `retry-after-ms: ms`
  429_date:HTTP-date  rate limited, `Retry-After` as an HTTP date (verbatim)
  429_noheader        rate limited, no Retry-After
  500 / 502 / 503[:s] server error (503 with an optional Retry-After)
  slow:s              sleep s seconds, then 503 (the client should have timed out)
  truncated_json      200, application/json, the body cut in half (Content-Length matches)
  cut_body            200, Content-Length of the full body, half sent, connection closed
  drop                connection closed without any response
  non_json            200, text/html error page
  content_filter      200, finish_reason "content_filter", no content
  null_content        200, finish_reason "stop", content null (not an answer: retried)
  empty_length        200, finish_reason "length", content "" and no log-probabilities (retried)
  content_filter_400  400, error code "content_filter" (Azure style)
  no_logprobs         200, the OK answer's text with `logprobs: null` (a server that ignores logprobs)
  nan_logprobs        200, the OK answer with every log-probability NaN (a bare `NaN` in the body)
  401                 authentication error whose message echoes the received key (tests redaction)

The OK answer: in choice requests (`logprobs: true`) the content is the label and top_logprobs
puts it first, the other labels (with a leading space) after; in generate requests the content is
"The answer is X. [digest]" where digest is `prompt_digest(prompt)`.
"""

from __future__ import annotations

import hashlib
import json
import random
import socket
import threading
import time
from collections import Counter
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Sequence

FAULT_KINDS = ("late", "429", "429_ms", "429_date", "429_noheader", "500", "502", "503", "slow", "truncated_json",
               "cut_body", "drop", "non_json", "content_filter", "content_filter_400", "401", "null_content",
               "empty_length", "no_logprobs", "nan_logprobs")
# The faults a load test mixes in (all recoverable, none slow).
LOAD_FAULTS = ("429:0", "429_noheader", "500", "503", "truncated_json", "cut_body", "drop", "non_json")


def prompt_digest(prompt: str) -> str:
    return hashlib.sha256(prompt.encode()).hexdigest()[:12]


def expected_label(prompt: str, labels: Sequence[str] = ("A", "B", "C", "D")) -> str:
    return labels[int(prompt_digest(prompt), 16) % len(labels)]


class LoopbackServer:
    """stop() and the context manager of a test server whose start() calls `serve`."""

    def start(self):
        raise NotImplementedError

    def stop(self) -> None:
        stop(self)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class FaultServer(LoopbackServer):
    def __init__(
        self,
        script: dict[str, list[str]] | None = None,
        *,
        plan: Callable[[str, int], str] | None = None,
        labels: Sequence[str] = ("A", "B", "C", "D"),
        fault_rate: float = 0.0,
        fault_kinds: Sequence[str] = LOAD_FAULTS,
        max_faulty_attempts: int = 2,
        seed: int = 0,
    ):
        self.script = dict(script or {})
        self._plan = plan
        self.labels = tuple(labels)
        self.fault_rate = fault_rate
        self.fault_kinds = tuple(fault_kinds)
        self.max_faulty_attempts = max_faulty_attempts
        self.seed = seed
        self._lock = threading.Lock()
        self.requests: Counter = Counter()  # prompt -> requests received
        self.answered: Counter = Counter()  # prompt -> valid completions sent
        self.log: list[dict] = []  # one entry per request: prompt, attempt, fault, time, Authorization
        self.auth_headers: set[str] = set()
        self.last_request: dict[str, dict] = {}  # prompt -> the last request body received
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    # -- plan -------------------------------------------------------------------------------------

    def fault_for(self, prompt: str, attempt: int) -> str:
        if self._plan is not None:
            return self._plan(prompt, attempt)
        for key in (prompt, "*"):
            if key in self.script:
                steps = self.script[key]
                return steps[attempt] if attempt < len(steps) else "ok"
        if self.fault_rate and attempt < self.max_faulty_attempts:
            rng = random.Random(f"{self.seed}:{prompt_digest(prompt)}:{attempt}")
            if rng.random() < self.fault_rate:
                return rng.choice(self.fault_kinds)
        return "ok"

    # -- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> "FaultServer":
        server = self

        class Handler(_Handler):
            fault_server = server

        return serve(self, Handler, "fault-server")

    # -- bookkeeping --------------------------------------------------------------------------------

    def _register(self, prompt: str, auth: str | None, request: dict) -> tuple[int, str]:
        with self._lock:
            self.last_request[prompt] = request
            attempt = self.requests[prompt]
            self.requests[prompt] += 1
            if auth:
                self.auth_headers.add(auth)
        fault = self.fault_for(prompt, attempt)
        with self._lock:
            self.log.append({"prompt": prompt, "attempt": attempt, "fault": fault, "t": time.monotonic(), "auth": auth})
        return attempt, fault

    def _count_answer(self, prompt: str) -> None:
        with self._lock:
            self.answered[prompt] += 1

    def faults_served(self) -> Counter:
        with self._lock:
            return Counter(e["fault"].split(":")[0] for e in self.log)

    # -- bodies ----------------------------------------------------------------------------------------

    def completion(self, request: dict, prompt: str) -> dict:
        label = expected_label(prompt, self.labels)
        choice_mode = bool(request.get("logprobs"))
        n_prompt = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
        choice: dict = {"index": 0, "finish_reason": "length" if choice_mode else "stop"}
        if choice_mode:
            top = [{"token": label, "logprob": -0.1, "bytes": list(label.encode())}]
            for i, other in enumerate(x for x in self.labels if x != label):
                top.append({"token": " " + other, "logprob": -2.0 - i, "bytes": list((" " + other).encode())})
            top.append({"token": "The", "logprob": -9.0, "bytes": list(b"The")})
            top = top[: int(request.get("top_logprobs") or 20)]
            choice["message"] = {"role": "assistant", "content": label}
            choice["logprobs"] = {"content": [{"token": label, "logprob": -0.1, "bytes": list(label.encode()),
                                               "top_logprobs": top}]}
            n_out = 1
        else:
            text = f"The answer is {label}. [{prompt_digest(prompt)}]"
            choice["message"] = {"role": "assistant", "content": text}
            choice["logprobs"] = None
            n_out = len(text.split())
        return {
            "id": f"chatcmpl-{prompt_digest(prompt)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "fault-model"),
            "system_fingerprint": "fp_fault",
            "choices": [choice],
            "usage": {"prompt_tokens": n_prompt, "completion_tokens": n_out, "total_tokens": n_prompt + n_out},
        }


def serve(owner, handler: type, name: str):
    """Start a threaded server on a free loopback port for `owner` (which gets `_httpd`,
    `_thread` and `base_url`), and return the owner."""
    owner._httpd = _Server(("127.0.0.1", 0), handler)
    host, port = owner._httpd.server_address[:2]
    owner.base_url = f"http://{host}:{port}/v1"
    owner._thread = threading.Thread(target=owner._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=name,
                                     daemon=True)
    owner._thread.start()
    return owner


def stop(owner) -> None:
    if owner._httpd is not None:
        owner._httpd.shutdown()
        owner._httpd.server_close()
        owner._thread.join(timeout=5)
        owner._httpd = None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def handle_error(self, request, client_address):  # a client that hung up is not news
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def _error(message: str, code: str | None = None, type_: str = "server_error") -> bytes:
    return json.dumps({"error": {"message": message, "type": type_, "param": None, "code": code}}).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fault_server: FaultServer
    timeout = 30  # idle keep-alive connections go away

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):  # quiet: tests capture output
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json", headers: dict | None = None,
              declared_length: int | None = None) -> None:
        lines = [f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}",
                 f"Content-Type: {content_type}",
                 f"Content-Length: {len(body) if declared_length is None else declared_length}",
                 f"Date: {formatdate(usegmt=True)}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        self.wfile.flush()

    def do_POST(self):
        srv = self.fault_server
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, _error(f"no route {self.path}", type_="invalid_request_error"))
            return
        try:
            request = json.loads(raw)
            messages = request["messages"]
            user = [m for m in messages if m.get("role") == "user"][-1]["content"]
            prompt = user if isinstance(user, str) else " ".join(
                p.get("text", "") for p in user if p.get("type") == "text")
        except (ValueError, KeyError, IndexError, TypeError):
            self._send(400, _error("malformed request", type_="invalid_request_error"))
            return
        _, fault = srv._register(prompt, self.headers.get("Authorization"), request)
        kind, _, arg = fault.partition(":")
        if kind == "late":
            time.sleep(float(arg))
            kind = "ok"
        if kind == "ok":
            body = json.dumps(srv.completion(request, prompt)).encode()
            self._send(200, body)
            srv._count_answer(prompt)
        elif kind == "429":
            self._send(429, _error("Rate limit reached", "rate_limit_exceeded", "requests"),
                       headers={"Retry-After": arg or "1"})
        elif kind == "429_ms":
            self._send(429, _error("Rate limit reached", "rate_limit_exceeded", "requests"),
                       headers={"retry-after-ms": arg or "1000"})
        elif kind == "429_date":
            self._send(429, _error("Rate limit reached", "rate_limit_exceeded", "requests"),
                       headers={"Retry-After": arg or formatdate(time.time() + 1, usegmt=True)})
        elif kind == "429_noheader":
            self._send(429, _error("Rate limit reached", "rate_limit_exceeded", "requests"))
        elif kind in ("500", "502", "503"):
            self._send(int(kind), _error(f"injected {kind}"), headers={"Retry-After": arg} if arg else None)
        elif kind == "slow":
            time.sleep(float(arg or 2))
            try:
                self._send(503, _error("too slow"))
            except OSError:
                pass
        elif kind == "truncated_json":
            body = json.dumps(srv.completion(request, prompt)).encode()
            self._send(200, body[: len(body) // 2])
        elif kind == "cut_body":
            body = json.dumps(srv.completion(request, prompt)).encode()
            self._send(200, body[: len(body) // 2], declared_length=len(body))
            self.close_connection = True
        elif kind == "drop":
            self.close_connection = True
        elif kind == "non_json":
            self._send(200, b"<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html")
        elif kind == "content_filter":
            completion = srv.completion(request, prompt)
            completion["choices"][0].update(finish_reason="content_filter", logprobs=None,
                                            message={"role": "assistant", "content": None})
            self._send(200, json.dumps(completion).encode())
        elif kind in ("null_content", "empty_length"):
            completion = srv.completion(request, prompt)
            completion["choices"][0].update(finish_reason="stop" if kind == "null_content" else "length", logprobs=None,
                                            message={"role": "assistant", "content": None if kind == "null_content" else ""})
            self._send(200, json.dumps(completion).encode())
        elif kind in ("no_logprobs", "nan_logprobs"):
            completion = srv.completion(request, prompt)
            lp = completion["choices"][0]["logprobs"]
            if kind == "no_logprobs" or lp is None:
                completion["choices"][0]["logprobs"] = None
            else:
                for tok in lp["content"]:
                    tok["logprob"] = float("nan")
                    for alt in tok["top_logprobs"]:
                        alt["logprob"] = float("nan")
            self._send(200, json.dumps(completion).encode())  # json.dumps writes NaN as a bare literal
        elif kind == "content_filter_400":
            self._send(400, _error("The response was filtered due to the prompt triggering the content "
                                   "management policy.", "content_filter", "invalid_request_error"))
        elif kind == "401":
            key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            self._send(401, _error(f"Incorrect API key provided: {key}.", "invalid_api_key", "invalid_request_error"))
        else:
            self._send(500, _error(f"fault server: unknown fault {fault!r}"))
