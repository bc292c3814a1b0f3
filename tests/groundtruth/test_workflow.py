"""rules/groundtruth.smk inside the real graph, on ML-100K in a temporary folder (slow: a real
Snakemake run)."""

import pytest
import yaml

from lrworld.core.io import read_jsonl
from tests.graph import job_counts, snakemake

MEASURES = ["assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items"]


def _config(wd, shared_data, min_support):
    cfg = {"datasets": {"ml100k": {"domain": "movie", "format": "ml-100k", "measures": MEASURES,
                                   "source": {"path": str(shared_data / "movielens-100k/raw")}}},
           "models": {"random": {"backend": "random"}},
           "groundtruth": {"n_questions": 50, "assoc": {"min_support": min_support},
                           "neumf": {"epochs": 1, "seeds": 1, "eval_users": 100, "device": "cpu"}}}
    (wd / "config.yaml").write_text(yaml.safe_dump(cfg))


def _targets():
    return [f"results/questions/ml100k/{m}.jsonl" for m in MEASURES]


@pytest.mark.slow
def test_workflow_builds_all_five_and_reruns_only_what_a_threshold_touches(tmp_path, shared_data):
    _config(tmp_path, shared_data, 0.01)
    snakemake(tmp_path, *_targets(), "--resources", "gpu=1")
    for m in MEASURES:
        qs = read_jsonl(tmp_path / f"results/questions/ml100k/{m}.jsonl")
        assert len(qs) == 50 and all(q["measure"] == m for q in qs)
    trainings = __import__("torch").load(tmp_path / "results/gt/ml100k/neumf.pt", weights_only=False)["seeds"]
    assert len(trainings) == 1  # the test config's neumf.seeds
    assert trainings[0]["log"][0]["epoch"] == 1 and 0 < trainings[0]["hr10"] <= 1
    for log in ["assoc_rules", "item_similar_pairs", "user_similar_pairs", "neumf", "prototypes"]:
        assert (tmp_path / f"logs/gt/ml100k/{log}.log").stat().st_size > 0
    # a new min_support: only the rule mining and the assoc_rule questions are out of date
    _config(tmp_path, shared_data, 0.015)
    assert job_counts(snakemake(tmp_path, "-n", *_targets()).stdout) == {"assoc_rules": 1, "gt_questions": 1}


@pytest.mark.slow
def test_a_dataset_too_small_for_its_measure_stops_in_one_line_without_a_traceback(tmp_path, shared_data):
    raw = tmp_path / "raw"
    raw.mkdir()
    for name in ("u.item", "u.user", "u.genre", "u.occupation", "u.info"):
        (raw / name).write_bytes((shared_data / "movielens-100k/raw" / name).read_bytes())
    # the first 300 ratings: 153 users and 231 items, too few for a similar item among 10 candidates
    lines = (shared_data / "movielens-100k/raw/u.data").read_text().splitlines(keepends=True)
    (raw / "u.data").write_text("".join(lines[:300]))
    cfg = {"datasets": {"tiny": {"domain": "movie", "format": "ml-100k", "measures": ["mem_item_item"],
                                 "source": {"path": str(raw)}}},
           "models": {"random": {"backend": "random"}}, "groundtruth": {"n_questions": 20}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path, "results/questions/tiny/mem_item_item.jsonl", check=False)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    line = ("datasets.tiny: mem_item_item: no question could be built from results/gt/tiny/item_similar_pairs.parquet "
            "(153 users, 231 items: too small for 10 candidates?)")
    assert [x.split(" ERROR ", 1)[1] for x in out.splitlines() if " ERROR " in x] == [line], out[-3000:]
    assert "Traceback" not in out and "Traceback" not in (tmp_path / "logs/questions/tiny/mem_item_item.log").read_text()
    assert not (tmp_path / "results/questions/tiny/mem_item_item.jsonl").exists()
