"""Through the real graph: a dataset fetched by URL (a zip served on 127.0.0.1), its raw
copy edited after the download with an older mtime. Snakemake's mtime check alone said "Nothing to
be done" and a forced ingest read the edited bytes; now the plain rerun re-runs ingest and both
stop in one line naming the file, and deleting the manifest fetches a clean copy again."""

import hashlib
import http.server
import io
import json
import os
import threading
import zipfile

import pytest
import yaml

from tests.graph import job_counts, snakemake

pytestmark = pytest.mark.slow
REPORT = "results/data/ml/ingest_report.json"


@pytest.fixture()
def zip_server(shared_data):
    raw = shared_data / "movielens-100k/raw"
    head = b"".join((raw / "u.data").read_bytes().splitlines(keepends=True)[:2000])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("ml-100k/u.data", head)
        zf.writestr("ml-100k/u.item", (raw / "u.item").read_bytes())
    body = buf.getvalue()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/ml-100k.zip", hashlib.sha256(body).hexdigest(), head
    srv.shutdown()
    srv.server_close()


def test_a_downloaded_copy_edited_with_an_older_mtime_is_refused_by_the_graph(tmp_path, zip_server):
    url, sha, head = zip_server
    cfg = {"seed": 1, "cache_dir": str(tmp_path / "cache"), "variants": ["zero_shot"],
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                               "source": {"url": url, "sha256": sha, "member_dir": "ml-100k"}}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, REPORT)
    assert json.loads((tmp_path / REPORT).read_text())["raw_interactions"] == 2000
    assert job_counts(snakemake(tmp_path, REPORT, "-n").stdout) == {}  # an untouched download re-runs nothing

    data = tmp_path / "results/raw/ml/u.data"
    st = data.stat()
    lines = data.read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b"\t3\t", b"\t5\t")  # user 196 rated item 242 a 3: now a 5
    assert lines[0] != head.splitlines(keepends=True)[0]
    data.write_bytes(b"".join(lines))
    os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns - 3600 * 10**9))  # an hour older than the fetch

    assert job_counts(snakemake(tmp_path, REPORT, "-n").stdout) == {"ingest": 1}  # was: Nothing to be done
    for args in ([], ["--forcerun", "ingest"]):
        proc = snakemake(tmp_path, REPORT, *args, check=False)
        assert proc.returncode != 0
        log = (tmp_path / "logs/ingest/ml.log").read_text()
        lines_ = [ln for ln in log.splitlines() if "it was fetched with" in ln]
        assert len(lines_) == 1 and "results/raw/ml/u.data: sha256 " in lines_[0], log
        assert "Traceback" not in log
        assert "manifest.json" in lines_[0] and "delete" in lines_[0]

    (tmp_path / "results/raw/ml/manifest.json").unlink()  # what the line says: fetch again
    snakemake(tmp_path, REPORT)
    assert (tmp_path / "results/raw/ml/u.data").read_bytes() == head
    assert job_counts(snakemake(tmp_path, REPORT, "-n").stdout) == {}
