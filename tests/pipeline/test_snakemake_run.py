"""The whole graph through the real Snakemake CLI, on real ML-100K from ../shared/data, with
random models (the real-model run of the default config is .ci/run's pipeline step)."""

import hashlib
import shutil

import pandas as pd
import pytest
import yaml

from lrworld.scoring.table import LEARNED_ROW, MEASURE_FIGURES
from tests.graph import job_counts, snakemake

pytestmark = pytest.mark.slow


def run(workdir, *args, check=True):
    return snakemake(workdir, *args, check=check)


def write_config(workdir, shared_data, models):
    cfg = {
        "seed": 11, "cache_dir": str(workdir / "cache"),
        "questions": {"history_length": 5, "per_measure": 60},
        "variants": ["zero_shot", "cot"],
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                            "source": {"path": str(shared_data / "movielens-100k/raw")},
                            "measures": ["attr_genre"]}},
        "models": models,
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(cfg))


def digest(paths):
    return {p.name + str(p.parent.name): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(paths)}




def test_default_graph_end_to_end_is_deterministic_and_incremental(tmp_path, shared_data):
    models = {"random": {"backend": "random", "seed": 0}, "random-b": {"backend": "random", "seed": 5}}
    write_config(tmp_path, shared_data, models)
    run(tmp_path)
    table = pd.read_csv(tmp_path / "results/tables/ml.csv")
    assert list(table["model"]) == ["random", LEARNED_ROW, "random-b"]
    assert list(table.columns) == ["model", "attr_genre", "attr_genre@cot"] + [
        f"attr_genre{v}_{f}" for f in ("degenerate", "debiased", "n", "ci_low", "ci_high", "diff_vs_random",
                                       "p_vs_random", "significant_vs_random") for v in ("", "@cot")] + [
        f"attr_genre{v}_{f}" for v in ("", "@cot") for f in MEASURE_FIGURES]
    # the measure's own figures, its validity controls among them
    assert {"negative_control", "positive_control", "answerable_from_data"} <= set(MEASURE_FIGURES)
    assert (table["attr_genre_n"] == 60).all() and (tmp_path / "results/tables/ml.tex").exists()
    # genres come from the dataset's own file alone: every gold single-source, in the csv and the md
    assert (table["attr_genre_single_source_share"] == 1.0).all() and (table["attr_genre_gold_sources"] == "ml-100k").all()
    assert (table["attr_genre_requested"] == 60).all() and table["attr_genre_short_reason"].isna().all()
    assert "attr_genre: 100% single-source (ml-100k)." in (tmp_path / "results/tables/ml.md").read_text()
    assert (tmp_path / "results/audit/ml.json").exists()
    # the learned knowledge-free row scores the zero-shot questions only (the audit's)
    assert table.loc[table["model"] == LEARNED_ROW, "attr_genre@cot"].isna().all()
    table = table.loc[table["model"] != LEARNED_ROW, ["model", "attr_genre", "attr_genre@cot"]]
    assert table.iloc[:, 1:].apply(lambda c: c.between(0, 1)).all().all()
    built = list((tmp_path / "results/questions").rglob("*.jsonl")) + list((tmp_path / "results/prompts").rglob("*.jsonl"))
    first, first_table = digest(built), (tmp_path / "results/tables/ml.csv").read_bytes()
    # the docs snippet: the table as results/ holds it, naming its table record
    snippet = (tmp_path / "results/docs/generated/ml.md").read_text()  # not the default config
    assert (tmp_path / "results/tables/ml.md").read_text().rstrip("\n") + "\n<!-- table:end -->" in snippet
    assert "- record: `results/provenance/ml/table.json`: 4 cells" in snippet
    scores = {p: p.read_bytes() for p in (tmp_path / "results/scores").rglob("*.json")}
    assert len(scores) == 4

    # delete results/ and rebuild: byte-identical questions, prompts and random scores (score files too)
    shutil.rmtree(tmp_path / "results")
    run(tmp_path)
    assert digest(built) == first
    assert (tmp_path / "results/tables/ml.csv").read_bytes() == first_table
    assert (tmp_path / "results/docs/generated/ml.md").read_text() == snippet  # a committed snippet stays clean
    assert {p: p.read_bytes() for p in scores} == scores

    # adding a model plans only that model's answers, cells (one score job per measure, every
    # variant's responses and score) and their provenance (one job per measure, every variant's
    # record), plus the table and its plots and browser page (and the site's index, which counts
    # the table's rows), its docs snippet, and its weights' identity file
    write_config(tmp_path, shared_data, {**models, "random-c": {"backend": "random", "seed": 9}})
    plan = job_counts(run(tmp_path, "-n").stdout)
    assert plan == {"all": 1, "model_identity": 1, "answer": 1, "score": 1, "provenance": 1, "table": 1,
                    "provenance_table": 1, "site_plots": 1, "site_page": 1, "site_index": 1, "docs_snippet": 1}


def test_bad_config_stops_before_any_job(tmp_path, shared_data):
    write_config(tmp_path, shared_data, {"../evil": {"backend": "random"}})
    proc = run(tmp_path, check=False)
    assert proc.returncode != 0
    assert "config: models: '../evil' is not a valid name" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()
