"""Fetching URL sources against a local HTTP server (Range requests, a connection cut mid-file, wrong
and missing checksums, every archive kind, a nested archive, md5)."""

import gzip
import hashlib
import http.server
import io
import logging
import tarfile
import threading
import zipfile

import pytest

from lrworld.data import sources
from lrworld.data.contract import DataError
from lrworld.data.options import problem

LOG = logging.getLogger("test-fetch")


class Handler(http.server.BaseHTTPRequestHandler):
    files: dict = {}
    cut_once: set = set()  # paths whose first full response is cut halfway
    log: list = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        rng = self.headers.get("Range")
        self.log.append((self.path, rng))
        start = int(rng.split("=")[1].split("-")[0]) if rng else 0
        self.send_response(206 if rng else 200)
        if rng:
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        if self.path in self.cut_once and not rng:
            self.cut_once.discard(self.path)
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.connection.close()  # the rest never arrives: a killed transfer
            return
        self.wfile.write(body[start:])

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    Handler.files, Handler.log = {}, []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def zip_bytes(members: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    return buf.getvalue()


def tar_bytes(members: dict, gz: bool = False) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w") as tf:
        for n, b in members.items():
            info = tarfile.TarInfo(n)
            info.size = len(b)
            tf.addfile(info, io.BytesIO(b))
    return buf.getvalue()


def test_several_files_of_every_kind(server, tmp_path):
    ratings, movies = b"userId,movieId\n1,1\n", b"movieId,title\n1,A (1990)\n"
    Handler.files = {
        "/ml.zip": zip_bytes({"ml/ratings.csv": ratings, "ml/README.txt": b"x"}),
        "/m.tar.gz": tar_bytes({"pack/movies.csv": movies, "pack/other": b"y"}, gz=True),
        "/links.csv.gz": gzip.compress(b"movieId,imdbId\n1,1\n"),
        "/extra.txt": b"plain",
    }
    src = {"url": [{"url": f"{server}/ml.zip", "sha256": sha(Handler.files["/ml.zip"]), "member_dir": "ml"},
                   {"url": f"{server}/m.tar.gz", "md5": hashlib.md5(Handler.files["/m.tar.gz"]).hexdigest(),
                    "member_dir": "pack"},
                   {"url": f"{server}/links.csv.gz", "sha256": sha(Handler.files["/links.csv.gz"])}]}
    man = sources.fetch(src, ["ratings.csv", "movies.csv"], ["links.csv"], tmp_path, LOG, "datasets.x.source")
    assert (tmp_path / "ratings.csv").read_bytes() == ratings and (tmp_path / "movies.csv").read_bytes() == movies
    assert gzip.decompress((tmp_path / "links.csv.gz").read_bytes()).startswith(b"movieId")  # kept, read by magic
    assert man["files"] == {"ratings.csv": sha(ratings), "movies.csv": sha(movies),
                            "links.csv.gz": sha(Handler.files["/links.csv.gz"])}
    assert not (tmp_path / "README.txt").exists() and not (tmp_path / "other").exists()
    # a single file nobody reads is refused, naming it
    src["url"].append({"url": f"{server}/extra.txt", "sha256": sha(b"plain")})
    with pytest.raises(DataError, match=r"extra\.txt: a single file named 'extra.txt'"):
        sources.fetch(src, ["ratings.csv", "movies.csv"], ["links.csv"], tmp_path / "again", LOG, "datasets.x.source")


def test_nested_archive_is_opened(server, tmp_path):
    inner = tar_bytes({"training_set/mv_0000001.txt": b"1:\n5,3,2005-01-01\n"})
    outer = tar_bytes({"download/training_set.tar": inner, "download/movie_titles.txt": b"1,2003,X\n"}, gz=True)
    Handler.files = {"/nf.tar.gz": outer}
    sources.fetch({"url": f"{server}/nf.tar.gz", "sha256": sha(outer), "member_dir": "download"},
                  ["training_set/mv_0000001.txt", "movie_titles.txt"], [], tmp_path, LOG, "datasets.nf.source")
    assert (tmp_path / "training_set/mv_0000001.txt").read_text().startswith("1:")
    assert (tmp_path / "movie_titles.txt").exists()


def test_interrupted_download_resumes_with_a_range_request(server, tmp_path):
    body = bytes(range(256)) * 4000
    Handler.files, Handler.cut_once = {"/big.zip": zip_bytes({"u.data": body})}, {"/big.zip"}
    src = {"url": f"{server}/big.zip", "sha256": sha(Handler.files["/big.zip"])}
    sources.fetch(src, ["u.data"], [], tmp_path, LOG, "datasets.x.source")
    assert (tmp_path / "u.data").read_bytes() == body
    half = len(Handler.files["/big.zip"]) // 2
    assert Handler.log == [("/big.zip", None), ("/big.zip", f"bytes={half}-")]
    assert not list((tmp_path / ".downloads").glob("*.part"))


def test_partial_file_never_counts_and_wrong_checksum_is_named(server, tmp_path):
    Handler.files = {"/a.csv": b"id\n1\n"}
    src = {"url": f"{server}/a.csv", "sha256": "0" * 64}
    with pytest.raises(DataError, match=r"/a\.csv: sha256 mismatch: expected 0{64}, got " + sha(b"id\n1\n")):
        sources.fetch(src, ["a.csv"], [], tmp_path, LOG, "datasets.x.source")
    assert not (tmp_path / "a.csv").exists() and not list((tmp_path / ".downloads").iterdir())


def test_missing_checksum_is_refused_unless_trusted(server, tmp_path):
    Handler.files = {"/a.csv": b"id\n1\n"}
    assert problem("x", {"source": {"url": f"{server}/a.csv"}}).startswith(
        f"datasets.x.source: {server}/a.csv has no sha256 or md5; add the publisher's checksum, or set "
        f"trust_first_download: true")
    with pytest.raises(DataError, match="has no sha256 or md5"):
        sources.fetch({"url": f"{server}/a.csv"}, ["a.csv"], [], tmp_path, LOG, "datasets.x.source")
    assert Handler.log == []  # refused before any byte was asked for
    man = sources.fetch({"url": f"{server}/a.csv", "trust_first_download": True}, ["a.csv"], [], tmp_path, LOG,
                        "datasets.x.source")
    assert man["downloads"] == [{"url": f"{server}/a.csv", "sha256": sha(b"id\n1\n"), "trusted_first_download": True}]


def test_a_raw_copy_changed_after_its_download_is_refused_naming_the_file(tmp_path):
    """Ingest checks the fetch manifest's sha256 before reading; an edit that
    kept an older mtime is caught, a deleted file too."""
    import hashlib
    import json
    import os

    import pytest

    from lrworld.data.contract import DataError
    from lrworld.data.sources import check_manifest

    raw = tmp_path / "results/raw/ml"
    raw.mkdir(parents=True)
    (raw / "u.data").write_bytes(b"1\t2\t5\t881250949\n")
    manifest = raw / "manifest.json"
    manifest.write_text(json.dumps({"files": {"u.data": hashlib.sha256(b"1\t2\t5\t881250949\n").hexdigest()}}))
    check_manifest(manifest)
    st = (raw / "u.data").stat()
    (raw / "u.data").write_bytes(b"1\t2\t1\t881250949\n")
    os.utime(raw / "u.data", ns=(st.st_atime_ns, st.st_mtime_ns - 10**9))
    with pytest.raises(DataError, match=r"u\.data: sha256 \w{12} is not the \w{12} it was fetched with"):
        check_manifest(manifest)
    (raw / "u.data").unlink()
    with pytest.raises(DataError, match=r"u\.data: listed in .*manifest\.json but missing"):
        check_manifest(manifest)
