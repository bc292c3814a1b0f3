"""A managed-server stand-in that echoes its command line and environment into its output (as vLLM
and llama.cpp print their arguments at start) and answers every chat completion with "A".

    python tests/support/echo_openai_server.py --port N [any other arguments]
"""

from __future__ import annotations

import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    port = int(sys.argv[sys.argv.index("--port") + 1])
    print("args:", " ".join(sys.argv[1:]), flush=True)
    print("env:", json.dumps(dict(os.environ), sort_keys=True), flush=True)

    class Handler(BaseHTTPRequestHandler):
        def _send(self, code: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._send(200 if self.path == "/health" else 404, {})

        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            print("request with", self.headers.get("Authorization"), flush=True)
            self._send(200, {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()),
                             "model": request.get("model", "echo"),
                             "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                                          "message": {"role": "assistant", "content": "A"}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
