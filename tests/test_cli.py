"""`lrworld explain` and `lrworld verify` on records built in a temporary workflow directory
(the whole graph through Snakemake is tests/provenance/test_pipeline_provenance.py)."""

import hashlib
import json
import os

import pytest

from lrworld.core import io
from lrworld.cli import main
from lrworld.provenance.record import score_record, table_record

ROLES = {"score": "results/scores/ml/random/g/zero_shot.json",
         "score_job": "results/provenance/ml/random/g.score-job.json",
         "responses": "results/responses/ml/random/g/zero_shot.jsonl",
         "summary": "results/answers/lrworld/ml/random.json",
         "prompts": "results/prompts/ml/g/zero_shot.jsonl", "template": "templates/g/zero_shot.txt",
         "questions": "results/questions/ml/g.jsonl", "questions_report": "results/questions/ml/g.report.json",
         "interactions": "results/data/ml/interactions.parquet", "items": "results/data/ml/items.parquet",
         "ingest_report": "results/data/ml/ingest_report.json"}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for path in ROLES.values():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").write(path)
    io.write_jsonl(ROLES["prompts"], [
        {"qid": "q1", "labels": ["A", "B"], "candidates": ["Drama", "Comedy"], "answer_index": 1},
        {"qid": "q2", "labels": ["A", "B"], "candidates": ["War", "Horror"], "answer_index": 0}])
    io.write_jsonl(ROLES["responses"], [
        {"qid": "q1", "raw_text": "Answer: B", "parsed": 1, "answer_index": 1},
        {"qid": "q2", "raw_text": "no idea", "parsed": None, "answer_index": 0}])
    io.write_jsonl(ROLES["questions"], [{"qid": "q1", "seed": 7}, {"qid": "q2", "seed": 7}])
    io.write_json(ROLES["summary"], {"identity": {"backend": "random", "seed": 0}, "asked": 2, "cached": 0})
    io.write_json(ROLES["score"], {"value": 0.5, "n": 2, "correct": 1, "missed": 1, "primary_metric": "accuracy"})
    io.write_json(ROLES["score_job"], {"rule": "score", "host": "h", "start": "t0", "end": "t1"})
    os.makedirs("raw")
    open("raw/u.data", "w").write("1\t2\t5\t100\n")
    rec = score_record(dict(ROLES), ["raw/u.data"], [], {"seed": 7}, {"score": []}, str(tmp_path),
                       {"dataset": "ml", "model": "random", "measure": "g", "variant": "zero_shot"})
    io.write_json("results/provenance/ml/random/g/zero_shot.json", rec)
    os.makedirs("results/tables")
    open("results/tables/ml.csv", "w").write("model,g\nrandom,0.5000\n")
    open("results/tables/ml.md", "w").write("| model | g |\n")
    io.write_json("results/provenance/ml/table-job.json", {"rule": "table", "host": "h", "start": "t0", "end": "t1"})
    io.write_json("results/provenance/ml/table.json", table_record(
        "results/tables/ml.csv", "results/tables/ml.md", "results/provenance/ml/table-job.json",
        ["results/provenance/ml/random/g/zero_shot.json"], {"seed": 7}, str(tmp_path), "ml"))
    return tmp_path


def test_explain_walks_from_the_cell_to_the_raw_file(workdir, capsys):
    assert main(["explain", "results/tables/ml.csv", "random", "g"]) == 0
    out = capsys.readouterr().out
    assert "ml | row random | column g = 0.5000" in out
    lines = out.strip().splitlines()
    raw_sha = hashlib.sha256(open("raw/u.data", "rb").read()).hexdigest()
    assert lines[-2].split() == ["raw", "raw/u.data"]
    assert lines[-1].split() == ["sha256", raw_sha, "source", "file", "ok"]
    for role in ("table", "score", "responses", "prompts", "template", "questions", "items"):
        assert any(line.split()[:1] == [role] for line in lines), role


def test_explain_json_lists_the_per_question_records(workdir, capsys):
    assert main(["explain", str(workdir / "results/tables/ml.md"), "random", "g", "--records", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert [c["role"] for c in res["chain"]][0] == "table" and res["chain"][-1]["path"] == "raw/u.data"
    assert res["records"] == [
        {"qid": "q1", "candidates": ["A. Drama", "B. Comedy"], "gold": "B", "gold_text": "Comedy",
         "raw_answer": "Answer: B", "parsed": "B", "correct": True},
        {"qid": "q2", "candidates": ["A. War", "B. Horror"], "gold": "A", "gold_text": "War",
         "raw_answer": "no idea", "parsed": None, "correct": False}]


def test_explain_unknown_cell_names_what_exists(workdir, capsys):
    assert main(["explain", "results/tables/ml.csv", "gpt", "g"]) == 2
    assert "has no row 'gpt'; rows: random" in capsys.readouterr().err
    assert main(["explain", "results/tables/ml.csv", "random", "kg"]) == 2
    assert "has no column 'kg'; columns: g" in capsys.readouterr().err
    assert main(["explain", "results/tables/other.csv", "random", "g"]) == 2
    assert "no provenance record for table 'other'" in capsys.readouterr().err


def test_verify_names_a_tampered_intermediate_and_a_missing_raw_file(workdir, capsys):
    assert main(["verify"]) == 0
    assert "verify: OK" in capsys.readouterr().out
    with open(ROLES["prompts"], "a") as fh:
        fh.write("\n")
    os.remove("raw/u.data")
    assert main(["verify"]) == 1
    out = capsys.readouterr().out
    assert f"CHANGED {ROLES['prompts']} (prompts, rule prompts)" in out
    assert "MISSING raw/u.data (raw, rule source): missing; behind ml: random / g" in out
    assert main(["verify", "--json"]) == 1
    res = json.loads(capsys.readouterr().out)
    assert sorted(p["path"] for p in res["problems"]) == sorted([ROLES["prompts"], "raw/u.data"])


def test_verify_without_records(tmp_path, capsys):
    assert main(["verify", "-d", str(tmp_path)]) == 2
    assert "no results/provenance/*/table.json" in capsys.readouterr().err
