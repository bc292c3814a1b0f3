"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (stdlib only), to open
the Snakemake report in headless Chromium, click through it and take screenshots."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--remote-debugging-pipe"]

# What Chromium answers to an evaluation that lands while the page is between two documents
# (DevTools protocol errors, and the exception of a context torn down mid-evaluation).
NAVIGATING = ("Inspected target navigated or closed", "Execution context was destroyed",
              "Cannot find context with specified id")


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    def __init__(self, exe: str, user_data_dir: str, size=(1280, 900)):
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        def fds():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={user_data_dir}",
                                      f"--window-size={size[0]},{size[1]}", "about:blank"],
                                     preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.session = None

    def _read_message(self) -> dict:
        while b"\0" not in self._buf:
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, session: bool = True, **params) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", session=False, url=url)["targetId"]
        self.session = self.send("Target.attachToTarget", session=False, targetId=target, flatten=True)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")

    def eval(self, expression: str):
        r = self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression[:80]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0):
        end = time.time() + timeout
        while time.time() < end:
            try:
                v = self.eval(expression)
            except RuntimeError as exc:
                # a click that navigates: asked between the two documents, Chromium answers that the
                # old one is gone; the new one is asked on the next turn
                if not any(m in str(exc) for m in NAVIGATING):
                    raise
                v = None
            if v:
                return v
            time.sleep(0.2)
        raise TimeoutError(f"not true after {timeout}s: {expression}")

    def screenshot(self, path) -> None:
        data = self.send("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._w)
        os.close(self._r)
