"""Provenance and incremental work through the real Snakemake CLI, on real ML-100K from
../shared/data with random models. The graph runs from a copy of the checkout, so the test can
edit a prompt template and a module without touching the repository."""

import hashlib
import json
import os
from pathlib import Path

import pandas as pd
import pytest

from lrworld.scoring.table import LEARNED_ROW
from tests.graph import copy_checkout, job_counts, snakemake
import yaml

from lrworld.cli import main

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
COPY = ["Snakefile", "rules", "scripts", "lrworld", "envs", "docs"]
MODELS = {"random": {"backend": "random", "seed": 0}, "random-b": {"backend": "random", "seed": 5}}
# a new table: its plots, browser pages and docs snippet (docs/generated/) follow
SITE = {"site_plots": 1, "site_page": 1, "site_index": 1, "docs_snippet": 1}


def write_config(work, shared_data, models):
    cfg = {"seed": 3, "cache_dir": str(work / "cache"), "questions": {"history_length": 5, "per_measure": 40},
           "variants": ["zero_shot", "cot"],
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")},
                               "measures": ["attr_genre"]}},
           "models": models}
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))


def smk(repo, work, *args):
    return snakemake(work, *args, snakefile=repo / "Snakefile")


def plan(repo, work):
    return job_counts(smk(repo, work, "-n").stdout)


def lrworld(work, *args, capsys):
    """The `lrworld` command in-process (the package under test is the same code as the copy's)."""
    rc = main([*args, "-d", str(work)])
    captured = capsys.readouterr()
    return rc, captured.out


def asked(work, model="random"):
    """Prompts the model's last answer job asked (the rest came from the cache)."""
    return json.loads((work / f"results/answers/lrworld/ml/{model}.json").read_text())["asked"]


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_data):
    base = tmp_path_factory.mktemp("prov")
    repo, work = base / "repo", base / "work"
    copy_checkout(repo, COPY)
    work.mkdir()
    write_config(work, shared_data, MODELS)
    smk(repo, work)
    return repo, work


def test_explain_ends_in_the_raw_file_and_verify_names_a_tampered_file(built, shared_data, capsys):
    repo, work = built
    rc, out = lrworld(work, "explain", "results/tables/ml.csv", "random-b", "attr_genre@cot", capsys=capsys)
    assert rc == 0
    lines = out.strip().splitlines()
    raw = shared_data / "movielens-100k/raw/u.user"  # the last declared raw input (u.user is one)
    assert lines[-2].split() == ["raw", str(raw)]
    assert lines[-1].split()[:2] == ["sha256", hashlib.sha256(raw.read_bytes()).hexdigest()]
    rules = [line.split()[3] for line in lines if line.split()[:1] == ["sha256"] and line.split()[2] == "rule"]
    # the answers rest on the model's weights identity too
    assert rules == ["table", "table", "provenance", "score", "score", "score", "answer", "model_identity", "prompts",
                     "questions", "questions", "audit", "ingest", "ingest", "ingest"]

    rc, out = lrworld(work, "explain", "results/tables/ml.csv", "random-b", "attr_genre@cot", "--json", "--records",
                      capsys=capsys)
    res = json.loads(out)
    assert len(res["records"]) == 40 and res["model_identity"]["identity"] == {"backend": "random", "seed": 5}
    assert sum(r["correct"] for r in res["records"]) == res["number"]["correct"]
    assert res["job"]["rule"] == "score" and res["job"]["host"] and res["job"]["start"] <= res["job"]["end"]
    assert res["code"]["git"]["error"] == "not a git repository"
    assert set(res["code"]["modules"]) == {"fetch_raw", "ingest", "assoc_rules", "similar_pairs", "neumf", "prototypes",
                                           "gt_questions", "questions", "prompts", "audit", "answer",
                                           "score"}
    assert res["config"]["subset"]["model"]["random-b"]["seed"] == 5 and len(res["config"]["sha256"]) == 64

    assert lrworld(work, "verify", capsys=capsys)[0] == 0
    questions = work / "results/questions/ml/attr_genre.jsonl"
    original, stat = questions.read_bytes(), questions.stat()
    questions.write_bytes(original.replace(b'"answer_index":0', b'"answer_index":1', 1))
    try:
        rc, out = lrworld(work, "verify", capsys=capsys)
        assert rc == 1
        assert out.count("CHANGED") == 1
        assert "CHANGED results/questions/ml/attr_genre.jsonl (questions, rule questions)" in out
    finally:
        questions.write_bytes(original)
        os.utime(questions, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert lrworld(work, "verify", capsys=capsys)[0] == 0


def test_report_shows_the_provenance_records(built):
    repo, work = built
    smk(repo, work, "--report", str(work / "report.html"))
    html = (work / "report.html").read_text(errors="replace")
    assert "results/provenance/ml/table.json" in html
    assert "results/provenance/ml/random-b/attr_genre/cot.json" in html


def test_incremental_plans(built, shared_data, capsys):
    repo, work = built
    # resizing a model's job (what it asks the cluster for) re-runs nothing
    sized = {**MODELS["random"], "gpus": 1, "mem_gb": 40, "throughput_tokens_s": 50, "startup_s": 600}
    write_config(work, shared_data, {**MODELS, "random": sized})
    assert plan(repo, work) == {}
    write_config(work, shared_data, MODELS)

    # a code change re-runs only the rules that declare the module (reverted: Snakemake compares checksums),
    # and the score script's code stamp (rules/code.smk); one score job and one provenance job per
    # (dataset, model, measure) write its variants' scores and records
    metrics = repo / "lrworld/scoring/metrics.py"
    code = metrics.read_text()
    metrics.write_text(code + "\n# edited\n")
    assert plan(repo, work) == {"all": 1, "code_stamp": 1, "score": 2, "provenance": 2, "table": 1,
                                "provenance_table": 1, **SITE}
    metrics.write_text(code)  # the later plans show nothing else is out of date

    # removing a model drops its row and re-runs nothing but the table
    write_config(work, shared_data, {"random": MODELS["random"]})
    assert plan(repo, work) == {"all": 1, "table": 1, "provenance_table": 1, **SITE}
    smk(repo, work)
    # the models, and the audit's learned knowledge-free answerer after RANDOM
    assert list(pd.read_csv(work / "results/tables/ml.csv")["model"]) == ["random", LEARNED_ROW]

    # a changed template: only that variant's prompts and what follows; the new prompts are asked
    template = repo / "lrworld/templates/movie/attr_genre/cot.txt"
    text, table = template.read_text(), (work / "results/tables/ml.csv").read_bytes()
    zero_shot = (work / "results/responses/ml/random/attr_genre/zero_shot.jsonl").read_bytes()
    template.write_text("Read carefully.\n" + text)
    # the model's answer job re-runs (asking only the new prompts), and so does the dataset's audit (it
    # reads every prompt file), so both records citing them are rebuilt (one provenance job); the
    # (dataset, model, measure)'s one score job re-scores the other variant from the cache, unchanged
    expect = {"all": 1, "prompts": 1, "audit": 1, "answer": 1, "score": 1, "provenance": 1, "table": 1,
              "provenance_table": 1, **SITE}
    assert plan(repo, work) == expect
    smk(repo, work)
    assert asked(work) == 40
    assert (work / "results/responses/ml/random/attr_genre/zero_shot.jsonl").read_bytes() == zero_shot
    # changed back: the prompts are the cached ones again, so none is re-asked and the table is as before
    template.write_text(text)
    smk(repo, work)
    assert asked(work) == 0
    assert (work / "results/tables/ml.csv").read_bytes() == table
    assert lrworld(work, "verify", capsys=capsys)[0] == 0
