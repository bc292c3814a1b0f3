"""The issue-17 check through the real graph: with OPENAI_API_KEY set and hostile poster URLs in
the metadata (file://, loopback, 169.254.169.254, a redirect to loopback, a 2 GB body, HTML served
as an image) plus a non-image file in image_dir, the captions job leaves no file containing the
key and sends the captioner nothing but real images.

The Snakemake run has the network guard on PYTHONPATH: a connect outside loopback fails and is
logged, so even a regression sends no traffic."""

import base64
import csv
import io
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from PIL import Image

from tests.support import netguard
from tests.support.fault_server import FaultServer
from tests.support.fixtures_netflix import write_netflix
from tests.support.image_server import ImageServer, png_bytes

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-e2e-Secret-0123456789abcdef"


class RecordingServer(FaultServer):
    """Keeps every request body (the captioner's images included)."""

    def __init__(self):
        super().__init__()
        self.bodies = []

    def _register(self, prompt, auth, request):
        self.bodies.append(request)
        return super()._register(prompt, auth, request)


def hostile(srv: ImageServer) -> list[str]:
    return ["file:///proc/self/environ", srv.url("/poster.png"), "http://169.254.169.254/latest/meta-data/",
            f"http://localhost:{srv.port}/redirect?to=http://127.0.0.1:{srv.port}/poster.png",
            srv.url("/big"), srv.url("/html"), f"http://[::1]:{srv.port}/poster.png", "http://10.0.0.7/poster.jpg"]


def test_hostile_metadata_leaks_no_key_and_sends_only_images(tmp_path):
    fx = write_netflix(tmp_path / "netflix", n_users=40, seed=0)
    images = tmp_path / "images"
    images.mkdir()
    real = png_bytes((10, 120, 200))
    (images / "1.png").write_bytes(real)
    (images / "3.jpg").write_text(f"OPENAI_API_KEY={KEY}\n")  # named like an image, is not one
    with ImageServer() as img_srv, RecordingServer() as api:
        rows = list(csv.reader(fx["metadata"].open(encoding="utf-8")))
        col = rows[0].index("poster_url")
        for row, url in zip(rows[1:], itertools.cycle(hostile(img_srv))):
            row[col] = url
        with fx["metadata"].open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh).writerows(rows)
        cfg = {"seed": 1, "cache_dir": str(tmp_path / "cache"), "variants": ["zero_shot"],
               "datasets": {"nf": {"domain": "movie", "format": "netflix", "parts": [1, 2],
                                   "source": {"path": str(tmp_path / "netflix")}, "image_dir": str(images),
                                   "metadata": {"netflix_metadata": str(fx["metadata"])}, "measures": ["attr_genre"]}},
               "captioner": {"backend": "openai", "model": "vision", "base_url": api.base_url, "max_retries": 0},
               "models": {"random": {"backend": "random"}}}
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
        guard_log = tmp_path / "netguard.log"
        env = dict(os.environ, OPENAI_API_KEY=KEY, LRWORLD_NETGUARD_LOG=str(guard_log),
                   PYTHONPATH=os.pathsep.join([str(netguard.SITE_DIR), os.environ.get("PYTHONPATH", "")]))
        proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                               "--cores", "2", "results/captions/nf/captions.parquet"],
                              capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
        assert sum(img_srv.hits.values()) == 0  # loopback posters were never requested
    assert not guard_log.exists(), guard_log.read_text()  # nothing tried to leave the machine
    leaks = [str(p) for p in tmp_path.rglob("*") if p.is_file() and p != images / "3.jpg"
             and KEY.encode() in p.read_bytes()]
    assert leaks == []
    sent = [part["image_url"]["url"] for body in api.bodies for part in body["messages"][-1]["content"]
            if part.get("type") == "image_url"]
    assert sent and all(u.startswith("data:image/") for u in sent)
    for u in sent:
        data = base64.b64decode(u.split(",", 1)[1])
        Image.open(io.BytesIO(data)).verify()
        assert data == real
    report = yaml.safe_load((tmp_path / "results/captions/nf/captions.report.json").read_text())
    assert report["from_folder"] == 1 and report["downloaded"] == 0
    assert report["skipped"]["scheme"] >= 1 and report["skipped"]["address"] >= 6 and report["skipped"]["not_image"] == 1
