"""A hostile image host on 127.0.0.1 (stdlib http.server) for the untrusted-URL tests.

    with ImageServer() as srv:  srv.url("/poster.png")

Routes: /poster.png a real PNG; /poster.jpg the same PNG, mislabelled; /html an HTML page served as
image/jpeg; /big a 2 GB body with its Content-Length; /endless a 2 GB body streamed without a
length (both stop when the client hangs up); /drip one byte every 0.2 s; /to/<path> a 302 to <path> on this server;
/redirect?to=<url> a 302 to any URL. `hits` counts requests per path.
"""

from __future__ import annotations

import io
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TWO_GB = 2 * 1024 ** 3


def png_bytes(rgb=(120, 90, 20), size=(48, 64)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, rgb).save(buf, format="PNG")
    return buf.getvalue()


class ImageServer:
    def __init__(self, host: str = "127.0.0.1"):
        self.host = host
        self.png = png_bytes()
        self.hits: Counter = Counter()
        self.streamed: Counter = Counter()  # bytes sent per path
        self._httpd = None

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def __enter__(self) -> "ImageServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _head(self, status, ctype, length=None, extra=None):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                if length is not None:
                    self.send_header("Content-Length", str(length))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()

            def _stream(self, path):
                block = b"\xff" * (1 << 16)
                try:
                    while server.streamed[path] < TWO_GB:
                        self.wfile.write(block)
                        server.streamed[path] += len(block)
                except OSError:  # the client stopped reading
                    pass

            def do_GET(self):
                parts = urlsplit(self.path)
                server.hits[parts.path] += 1
                if parts.path in ("/poster.png", "/poster.jpg"):
                    self._head(200, "image/png" if parts.path.endswith("png") else "image/jpeg", len(server.png))
                    self.wfile.write(server.png)
                elif parts.path == "/html":
                    body = b"<html><body>Not an image: OPENAI_API_KEY=sk-...</body></html>"
                    self._head(200, "image/jpeg", len(body))
                    self.wfile.write(body)
                elif parts.path == "/big":
                    self._head(200, "image/jpeg", TWO_GB)
                    self._stream("/big")
                elif parts.path == "/endless":
                    self.close_connection = True
                    self._head(200, "image/jpeg")
                    self._stream("/endless")
                elif parts.path == "/drip":
                    self._head(200, "image/png", 10_000)
                    try:
                        for _ in range(10_000):
                            self.wfile.write(b"\x89")
                            self.wfile.flush()
                            time.sleep(0.2)
                    except OSError:
                        pass
                elif parts.path.startswith("/to/"):
                    self._head(302, "text/plain", 0, {"Location": parts.path[3:]})
                elif parts.path == "/redirect":
                    self._head(302, "text/plain", 0, {"Location": parse_qs(parts.query)["to"][0]})
                else:
                    self._head(404, "text/plain", 0)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

        self._httpd = Server((self.host, 0), Handler)
        self.port = self._httpd.server_address[1]
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
