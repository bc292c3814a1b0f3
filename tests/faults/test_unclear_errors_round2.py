"""Issue 27, "Unclear errors": each is one line naming the file or config key, through the real
interface (config validation, the graph, ingest), where it was a traceback, a hang or a wrong message."""

import copy
import logging
import gzip
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from lrworld.config import assembly as lrw_config
from lrworld.core import yamlfile
from lrworld.data.contract import DataError
from lrworld.data.ingest import ingest
from lrworld.data.jsonlines import read_records
from lrworld.core.schema import ConfigError
from tests.data.test_sources import Handler, server, sha, zip_bytes  # noqa: F401 (server: the local HTTP fixture)

ROOT = Path(__file__).resolve().parents[2]
BASE = yaml.safe_load((ROOT / "config.yaml").read_text())


def _alias_bomb(path: Path) -> Path:
    # billion laughs: 9 levels of 9 aliases, 387,420,489 strings once written out
    lines = ['lol: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    lines.append("datasets: {bomb: *i}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_yaml_alias_bomb_is_refused_at_load_naming_the_file(tmp_path):
    bomb = _alias_bomb(tmp_path / "bomb.yaml")
    with pytest.raises(ConfigError, match=rf"^{bomb}: YAML aliases \(\*name\) expand to more than 200,000 values") as info:
        yamlfile.load_yaml(bomb)
    assert "\n" not in str(info.value)
    rec = tmp_path / "rec.yaml"
    rec.write_text("a: &a [1, *a]\n")  # an alias inside its own anchor: infinite once written out
    with pytest.raises(ConfigError, match=rf"^{rec}: YAML aliases"):
        yamlfile.load_yaml(rec)
    few = tmp_path / "few.yaml"
    few.write_text("base: &b {per_measure: 10}\nquestions: *b\n")  # ordinary aliases still load
    assert yamlfile.load_yaml(few) == {"base": {"per_measure": 10}, "questions": {"per_measure": 10}}


def test_the_graph_refuses_an_alias_bomb_configfile_in_one_line(tmp_path):
    # Snakemake loads --configfile itself first (fast: aliases stay shared objects); the project's
    # strict re-read in rules/common.smk refuses it before validation walks 387 million strings
    bomb = _alias_bomb(tmp_path / "bomb.yaml")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "-n", "--cores", "1", "--configfile", str(ROOT / "config.yaml"), str(bomb)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert f"{bomb}: YAML aliases (*name) expand to more than 200,000 values" in out
    assert "Traceback" not in out


def _renamed(section: str, name: str) -> dict:
    cfg = copy.deepcopy(BASE)
    first = next(iter(cfg[section]))
    cfg[section][name] = cfg[section].pop(first)
    return cfg


@pytest.mark.parametrize("section", ["datasets", "models"])
@pytest.mark.parametrize("name, why", [
    ("a" * 64, r"ends in 'a' repeated 64 times, which Snakemake refuses as a periodic wildcard"),
    ("ml" + "ab" * 20, r"ends in 'ab' repeated 20 times, which Snakemake refuses as a periodic wildcard"),
    ("m" * 30 + "-" + "0123456789" * 4, r"71 characters; at most 64"),
    ("ml 100k;rm", r"letters, digits, '_', '\.', '-'; no '/', '\.\.' or spaces"),
])
def test_a_name_snakemake_cannot_take_is_refused_naming_the_key(section, name, why):
    with pytest.raises(ConfigError, match=rf"^config: {section}: '{re.escape(name)}' is not a valid name \({why}\)$"):
        lrw_config.validate(_renamed(section, name))


def test_names_just_inside_the_bounds_still_pass():
    lrw_config.validate(_renamed("datasets", "b" + "a" * 19))  # 19 repeats: Snakemake's detector needs 20
    lrw_config.validate(_renamed("models", "m" * 3 + "-" + "0123456789" * 6))  # 64 characters


def test_the_graph_refuses_a_periodic_dataset_name_before_planning(tmp_path):
    name = "a" * 64
    cfg = {"datasets": {name: BASE["datasets"][next(iter(BASE["datasets"]))]}}
    (tmp_path / "over.yaml").write_text(yaml.safe_dump(cfg))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                           "-n", "--cores", "1", "--configfile", str(ROOT / "config.yaml"), str(tmp_path / "over.yaml")],
                          capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"config: datasets: '{name}' is not a valid name (ends in 'a' repeated 64 times" in out
    assert "PeriodicWildcardError" not in out and "Traceback" not in out


def test_llara_n_candidates_past_the_bound_is_refused_naming_the_key():
    cfg = copy.deepcopy(BASE)
    cfg.setdefault("llara", {})["n_candidates"] = 1000000
    with pytest.raises(ConfigError, match=r"^config: llara\.n_candidates: 1000000 is greater than the maximum of 100$"):
        lrw_config.validate(cfg)
    cfg["llara"]["n_candidates"] = 100
    lrw_config.validate(cfg)


def test_llara_candidates_beyond_a_small_dataset_name_the_key_and_the_dataset():
    from lrworld.tracks.llara.candidates import draw_candidates
    from lrworld.tracks.llara.data import Example, LlaraSet

    ds = LlaraSet("tiny", {i: f"Film {i}" for i in range(30)}, [Example("q0", (1, 2), 3)])
    assert len(draw_candidates(ds, n=28)[0]["candidates"]) == 28  # 27 negatives: 30 items less 3 seen
    with pytest.raises(ValueError, match=r"^llara\.n_candidates: 29 candidates need 28 negatives, but q0 of tiny has "
                                         r"only 27 items with distinct titles left; lower llara\.n_candidates$"):
        draw_candidates(ds, n=29)


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
                                        r"with BOM\); set datasets\.ml\.encoding \(now 'utf-16'\)$"):
        ingest("ml", {"format": "ml-100k", "encoding": "utf-16"}, ml100k, {})
    # u.item is Latin-1 (the published encoding): its first non-UTF-8 byte is named
    with pytest.raises(DataError, match=rf"^{ml100k / 'u.item'}: not readable as utf-8 at byte offset 76620 \(invalid "
                                        r"continuation byte\); set datasets\.ml\.encoding \(now 'utf-8'\)$"):
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
