"""A stand-in for a model server process, to test lrworld.inference.servers (stdlib only).

    python tests/support/stub_server.py --port N [--record FILE] [--healthy-after S] [--ignore-term]
                                        [--child] [--never-healthy]

Serves GET /health (503 until --healthy-after seconds have passed, then 200; always 503 with
--never-healthy). --record writes {"argv", "env", "pid", "child_pid"} as JSON once listening.
--child starts a sleeping grandchild in the same process group (as vLLM starts its workers);
--ignore-term ignores SIGTERM, so only SIGKILL stops it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--record")
    ap.add_argument("--healthy-after", type=float, default=0.0)
    ap.add_argument("--never-healthy", action="store_true")
    ap.add_argument("--ignore-term", action="store_true")
    ap.add_argument("--child", action="store_true")
    args, _ = ap.parse_known_args()
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]) if args.child else None
    ready_at = time.monotonic() + args.healthy_after

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            ok = self.path == "/health" and not args.never_healthy and time.monotonic() >= ready_at
            self.send_response(200 if ok else 503)
            self.end_headers()
            self.wfile.write(b"ok" if ok else b"loading")

        def log_message(self, *a):
            pass

    httpd = HTTPServer(("127.0.0.1", args.port), Handler)
    print(f"stub server listening on {args.port}", flush=True)
    if args.record:
        with open(args.record, "w") as fh:
            json.dump({"argv": sys.argv, "env": dict(os.environ), "pid": os.getpid(),
                       "child_pid": child.pid if child else None}, fh)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
