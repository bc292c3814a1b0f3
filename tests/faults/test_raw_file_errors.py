"""Raw files that cannot be read as given (a truncated .gz, a wrong encoding, a broken JSON line,
another format's metadata, an archive member outside the dataset's folder): each is one line naming
the file and what to do, through ingest and the fetch; packed .gz twins are read like the plain files."""

import gzip
import logging
import shutil
from collections import Counter
from pathlib import Path

import pytest

from lrworld.data.contract import DataError
from lrworld.data.ingest import ingest
from lrworld.data.jsonlines import read_records
from tests.data.test_sources import Handler, server, sha, zip_bytes  # noqa: F401 (server: the local HTTP fixture)


def _gzip_all(folder: Path) -> None:
    """Every file under folder replaced by its .gz twin (as a user who kept the downloads packed)."""
    for f in [p for p in folder.rglob("*") if p.is_file()]:
        f.with_name(f.name + ".gz").write_bytes(gzip.compress(f.read_bytes(), mtime=0))
        f.unlink()


@pytest.fixture()
def ml100k(tmp_path, shared_data):
    folder = tmp_path / "ml"
    folder.mkdir()
    for name in ("u.data", "u.item"):
        shutil.copy(shared_data / "movielens-100k/raw" / name, folder / name)
    return folder


def test_a_truncated_gz_input_is_one_line_naming_the_file(ml100k):
    data = ml100k / "u.data"
    packed = gzip.compress(data.read_bytes(), mtime=0)
    (ml100k / "u.data.gz").write_bytes(packed[: len(packed) // 2])  # a download cut off half-way
    data.unlink()
    with pytest.raises(DataError, match=rf"^{ml100k / 'u.data.gz'}: truncated or damaged gzip file \(Compressed file "
                                        r"ended before the end-of-stream marker was reached\); download it again$"):
        ingest("ml", {"format": "ml-100k"}, ml100k, {})


def test_an_encoding_that_cannot_read_the_file_names_the_file_and_the_key(ml100k):
    with pytest.raises(DataError, match=rf"^{ml100k / 'u.data'}: not readable as utf-16 \(UTF-16 stream does not start "
                                        r"with BOM; no byte-order mark\); set datasets\.ml\.encoding \(now 'utf-16'\)$"):
        ingest("ml", {"format": "ml-100k", "encoding": "utf-16"}, ml100k, {})
    # u.item is Latin-1 (the published encoding): its first non-UTF-8 byte is named
    with pytest.raises(DataError, match=rf"^{ml100k / 'u.item'}: not readable as utf-8 at byte offset 76620 \(invalid "
                                        r"continuation byte; no byte-order mark\); set datasets\.ml\.encoding \(now 'utf-8'\)$"):
        ingest("ml", {"format": "ml-100k", "encoding": "utf-8"}, ml100k, {})


def test_a_json_line_error_says_at_once(tmp_path):
    f = tmp_path / "reviews.json"
    f.write_text('{"asin": "B1", "reviewerID": "u1", "overall": 5.0, "unixReviewTime": 1}\n{"asin": "B2, "x": 1}\n')
    with pytest.raises(DataError) as info:
        list(read_records(f, ("asin",), "error", Counter()))
    assert str(info.value) == (f"{f}: line 2: not valid JSON (Expecting ',' delimiter at column 16) "
                               f"(set on_bad_line: skip to count and skip such lines)")
    f.write_text('{"asin": "B1')  # the last line of a cut-off file
    with pytest.raises(DataError, match=r"line 1: not valid JSON \(Unterminated string starting at column 10\)"):
        list(read_records(f, ("asin",), "error", Counter()))


def test_gz_twins_are_read_for_netflix_netflix_prize_ml_100k(tmp_path, ml100k):
    from tests.support.fixtures_netflix import BASE_MOVIES, write_netflix

    plain = ingest("ml", {"format": "ml-100k"}, ml100k, {})
    _gzip_all(ml100k)
    packed = ingest("ml", {"format": "ml-100k"}, ml100k, {})
    assert len(packed[0]) == len(plain[0]) == 99693
    for fmt, cfg, layout in [("netflix", {"format": "netflix", "parts": [1, 2]}, None),
                             ("netflix-prize", {"format": "netflix-prize", "movies": len(BASE_MOVIES)}, "training_set")]:
        folder = tmp_path / fmt
        fx = write_netflix(folder, n_users=25, seed=4, **({"layout": layout} if layout else {}))
        _gzip_all(folder)
        inter = ingest("nf", cfg, folder, {})[0]
        assert len(inter) == fx["n_ratings"]


def test_gz_twins_are_read_for_ml_latest(tmp_path):
    folder = tmp_path / "mll"
    folder.mkdir()
    (folder / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,10,4.0,100\n1,20,3.0,101\n2,10,5.0,102\n")
    (folder / "movies.csv").write_text("movieId,title,genres\n10,Heat (1995),Action|Crime\n20,Babe (1995),Children\n")
    (folder / "links.csv").write_text("movieId,imdbId,tmdbId\n10,0113277,949\n20,0112431,9598\n")
    _gzip_all(folder)
    inter, items, _, _ = ingest("mll", {"format": "ml-latest"}, folder, {})
    assert len(inter) == 3
    assert dict(zip(items["item_id"], items["imdb_id"])) == {"10": "0113277", "20": "0112431"}


@pytest.mark.parametrize("on_bad_line", ["error", "skip"])
def test_amazon_2014_metadata_under_amazon_2018_does_not_suggest_skipping(tmp_path, on_bad_line):
    f = tmp_path / "meta.json"
    f.write_text("{'asin': 'B1', 'title': 'Kettle'}\n")
    with pytest.raises(DataError) as info:
        list(read_records(f, ("asin",), on_bad_line, Counter()))
    assert str(info.value) == f"{f}: line 1: a Python dict literal, not JSON: Amazon 2014 metadata (set format: amazon-2014)"


@pytest.mark.parametrize("member", ["../u.data", "ml/../../u.data", "/tmp/u.data"])
def test_a_needed_file_only_in_a_traversal_member_is_reported_as_refused(server, tmp_path, member):  # noqa: F811
    from lrworld.data import sources

    body = zip_bytes({member: b"1\t2\t3\t100\n", "u.item": b"2|A|01-Jan-1995||x\n"})
    Handler.files = {"/ml.zip": body}
    dest = tmp_path / "raw"
    with pytest.raises(DataError) as info:
        sources.fetch({"url": f"{server}/ml.zip", "sha256": sha(body)}, ["u.data", "u.item"], [], dest,
                      logging.getLogger("t"), "datasets.ml.source")
    assert str(info.value) == (f"datasets.ml.source: u.data is only in member {member!r} of ml.zip, refused: its path "
                               f"leads outside the dataset's folder (absolute or '..'); fix the archive, or unpack it "
                               f"yourself and give `path:`")
    assert not (tmp_path / "u.data").exists() and not (dest / "u.data").exists()
