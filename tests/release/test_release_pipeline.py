"""`lrworld pack` and `source: {benchmark: ...}` (issue 23.2) through the real Snakemake CLI, on
real ML-100K from ../shared/data with the random model: a release scored in a fresh folder gives
byte-identical score files, and the graph plans no fetch, ingest or ground truth for it."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from lrworld.cli import main
from tests.graph import job_counts, snakemake

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


def test_a_release_scores_to_byte_identical_files_in_a_fresh_folder(packed, capsys):
    base, built, rel = packed
    man = json.loads((rel / "release.json").read_text())
    assert man["measures"] == MEASURES and man["variants"] == ["zero_shot", "cot"] and man["audit"]["passed"]
    assert "GroupLens" in man["licences"]["format ml-100k"]
    assert main(["verify", str(rel)]) == 0

    fresh = base / "fresh"
    config(fresh, {"benchmark": str(rel)})
    plan = job_counts(smk(fresh, "-n").stdout)
    assert not {"fetch_raw", "ingest", "gt_questions", "questions", "prompts", "similar_pairs"} & set(plan)
    assert plan["release_prompts"] == 4 and plan["release_questions"] == 2 and plan["score"] == 2  # one score job per measure, over its 2 variants
    smk(fresh)
    files = sorted(p.relative_to(built) for d in ("scores", "responses", "questions", "prompts")
                   for p in (built / "results" / d).rglob("*") if p.is_file())
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
