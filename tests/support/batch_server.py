"""A fake of OpenAI's Batch API on 127.0.0.1 (stdlib only): files (upload, content), batches
(create, retrieve) and chat completions, counting what would be billed.

    with BatchServer(hold=True) as srv:       # batches stay in_progress until srv.release()
        ... base_url=srv.base_url, batch: true ...
    srv.batches_created, srv.submitted[custom_id], srv.chat_requests[prompt]

A released batch completes at its next retrieve: one output line per request with the
FaultServer's deterministic completion (`expected_label(prompt)`), except prompts in
`fail_prompts` (an error-file line with status 500) and `bad_body_prompts` (a 200 line whose body
is not a chat completion). `expire=True` ends batches as `expired` with only the first
`expire_after` requests answered, the rest in the error file (code batch_expired), as OpenAI does.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler

from tests.support.fault_server import FaultServer, LoopbackServer, serve


def _prompt(body: dict) -> str:
    return [m for m in body["messages"] if m.get("role") == "user"][-1]["content"]


class BatchServer(LoopbackServer):
    def __init__(self, *, hold: bool = False, fail_prompts=(), bad_body_prompts=(), expire: bool = False,
                 expire_after: int = 0, labels=("A", "B", "C", "D")):
        self.hold = hold
        self.fail_prompts = set(fail_prompts)
        self.bad_body_prompts = set(bad_body_prompts)
        self.expire, self.expire_after = expire, expire_after
        self._bodies = FaultServer(labels=labels)  # only its completion() is used
        self._lock = threading.Lock()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.uploads = 0
        self.batches_created = 0
        self.retrieves = 0
        self.submitted: Counter = Counter()  # custom_id -> times it appeared in a created batch
        self.prompts_submitted: Counter = Counter()  # prompt -> times it appeared in a created batch
        self.billed: Counter = Counter()  # prompt -> completions that would be billed (batch or online)
        self.chat_requests: Counter = Counter()  # prompt -> online chat completion requests
        self.truncate_line = 0
        self._httpd = None
        self.base_url = ""

    def truncate_output_line(self, n: int) -> None:
        """Cut the output file's line n (1-based) of every finished batch in half (a truncated download)."""
        self.truncate_line = n

    def listing(self) -> dict:
        with self._lock:
            data = [self.public(b) for b in sorted(self.batches, reverse=True)]
        return {"object": "list", "data": data, "first_id": None, "last_id": None, "has_more": False}

    def release(self) -> None:
        self.hold = False

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> "BatchServer":
        srv = self

        class Handler(_Handler):
            server_state = srv

        return serve(self, Handler, "batch-server")

    # -- the API --------------------------------------------------------------------------------
    def upload(self, content: bytes, purpose: str, filename: str) -> dict:
        with self._lock:
            self.uploads += 1
            fid = f"file-{len(self.files) + 1}"
            self.files[fid] = content
        return {"id": fid, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                "filename": filename, "purpose": purpose, "status": "processed"}

    def create_batch(self, request: dict) -> dict:
        lines = [json.loads(x) for x in self.files[request["input_file_id"]].decode().splitlines() if x.strip()]
        with self._lock:
            self.batches_created += 1
            bid = f"batch_{len(self.batches) + 1}"
            for line in lines:
                self.submitted[line["custom_id"]] += 1
                self.prompts_submitted[_prompt(line["body"])] += 1
            self.batches[bid] = {
                "id": bid, "object": "batch", "endpoint": request["endpoint"], "errors": None,
                "input_file_id": request["input_file_id"], "completion_window": request["completion_window"],
                "status": "in_progress", "output_file_id": None, "error_file_id": None,
                "created_at": int(time.time()), "metadata": request.get("metadata"),
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0}, "_lines": lines,
            }
        return self.public(bid)

    def retrieve(self, bid: str) -> dict | None:
        with self._lock:
            self.retrieves += 1
            batch = self.batches.get(bid)
            if batch is None:
                return None
            if batch["status"] == "in_progress" and not self.hold:
                self._finish(batch)
        return self.public(bid)

    def public(self, bid: str) -> dict:
        return {k: v for k, v in self.batches[bid].items() if not k.startswith("_")}

    def _finish(self, batch: dict) -> None:
        out, err = [], []
        for n, line in enumerate(batch["_lines"]):
            prompt, cid = _prompt(line["body"]), line["custom_id"]
            rid = f"batch_req_{batch['id']}_{n}"
            if self.expire and n >= self.expire_after:
                err.append({"id": rid, "custom_id": cid, "response": None,
                            "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
            elif prompt in self.fail_prompts:
                err.append({"id": rid, "custom_id": cid, "error": None,
                            "response": {"status_code": 500, "request_id": rid, "body": {"error": {"message": "injected", "type": "server_error"}}}})
            elif prompt in self.bad_body_prompts:  # answered, so billed, but unusable
                self.billed[prompt] += 1
                out.append({"id": rid, "custom_id": cid, "error": None,
                            "response": {"status_code": 200, "request_id": rid, "body": {"object": "chat.completion"}}})
            else:
                self.billed[prompt] += 1
                out.append({"id": rid, "custom_id": cid, "error": None,
                            "response": {"status_code": 200, "request_id": rid, "body": self._bodies.completion(line["body"], prompt)}})
        for kind, lines in (("output_file_id", out), ("error_file_id", err)):
            if lines:
                fid = f"file-{len(self.files) + 1}"
                text = [json.dumps(x) for x in lines]
                if kind == "output_file_id" and 0 < self.truncate_line <= len(text):
                    text[self.truncate_line - 1] = text[self.truncate_line - 1][: len(text[self.truncate_line - 1]) // 2]
                self.files[fid] = "".join(x + "\n" for x in text).encode()
                batch[kind] = fid
        batch["status"] = "expired" if self.expire else "completed"
        batch["request_counts"] = {"total": len(batch["_lines"]), "completed": len(out), "failed": len(err)}

    def chat(self, request: dict) -> dict:
        prompt = _prompt(request)
        with self._lock:
            self.chat_requests[prompt] += 1
            self.billed[prompt] += 1
        return self._bodies.completion(request, prompt)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_state: BatchServer

    def log_message(self, *args):
        pass

    def _send(self, status: int, obj) -> None:
        body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if not isinstance(obj, bytes) else "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _not_found(self) -> None:
        self._send(404, {"error": {"message": f"no such object: {self.path}", "type": "invalid_request_error"}})

    def do_POST(self):
        srv, raw, path = self.server_state, self._body(), self.path.rstrip("/")
        if path.endswith("/files"):
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + raw)
            fields = {p.get_param("name", header="content-disposition"): p for p in msg.iter_parts()}
            content = fields["file"].get_payload(decode=True)
            purpose = fields["purpose"].get_payload(decode=True).decode()
            self._send(200, srv.upload(content, purpose, fields["file"].get_filename() or "upload"))
        elif path.endswith("/batches"):
            self._send(200, srv.create_batch(json.loads(raw)))
        elif path.endswith("/chat/completions"):
            self._send(200, srv.chat(json.loads(raw)))
        else:
            self._not_found()

    def do_GET(self):
        srv, parts = self.server_state, self.path.rstrip("/").split("/")
        if len(parts) >= 3 and parts[-3] == "files" and parts[-1] == "content" and parts[-2] in srv.files:
            self._send(200, srv.files[parts[-2]])
        elif parts[-1].split("?")[0] == "batches":
            self._send(200, srv.listing())
        elif len(parts) >= 2 and parts[-2] == "batches":
            batch = srv.retrieve(parts[-1])
            self._send(200, batch) if batch else self._not_found()
        else:
            self._not_found()
