"""rules/audit.smk through the real Snakemake CLI on hand-made files: a violation fails the job with
one line naming the file, the question id and the check, and no audit output is written."""

import json

import pandas as pd
import pytest

from lrworld.core import io
from lrworld.config.assembly import fill_defaults
from lrworld.workflow.plan import Plan
from tests.graph import ROOT, snakemake
from tests.support.fixtures_audit import INTER, ITEMS_X, one, prompts_for

MEASURES = ["attr_genre", "text_logline", "mem_item_item", "assoc_rule"]

# The audit rule on its own: the names rules/common.smk would define, nothing else of the graph.
SNAKEFILE = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
DATASETS = {{"d": {{"domain": "movie", "measures": {MEASURES!r}, "user_items_shown": 5}}}}
config.update({{"seed": 0, "questions": {{"exclude_values": {{}}}}}})


class W:
    gt = {{"assoc": {{"window": 20}}}}

    @staticmethod
    def code(*parts):
        return []

    @staticmethod
    def question_files(dataset, suffix=".jsonl"):
        return expand("results/questions/{{dataset}}/{{measure}}" + suffix, dataset=dataset,
                      measure=DATASETS[dataset]["measures"])

    @staticmethod
    def audit_artifacts(dataset):
        return []

    @staticmethod
    def audit_raw_inputs(dataset):
        return {{}}

    @staticmethod
    def ingest_cfg(dataset):
        return {{}}

    @staticmethod
    def facts_inputs(dataset):
        return ["results/data/d/facts.parquet"]

    @staticmethod
    def prompt_files(dataset):
        return expand("results/prompts/{{dataset}}/{{measure}}/zero_shot.jsonl", dataset=dataset,
                      measure=DATASETS[dataset]["measures"])


include: {str(ROOT / "rules/audit.smk")!r}
"""


# what the sources say of the fixture's items: item 6 is a Drama and a War film
FACTS = pd.DataFrame({"item_id": ["6", "6"], "field": "genres", "value": ["Drama", "War"], "sources": [["f"], ["f"]],
                      "witnesses": 1, "status": "single_source"})


def _write(wd, questions, facts=None, items=ITEMS_X):
    wd.mkdir(parents=True)
    (wd / "Snakefile").write_text(SNAKEFILE)
    qfiles = {m: (f"results/questions/d/{m}.jsonl", questions[m]) for m in MEASURES}
    for m, (path, qs) in qfiles.items():
        io.write_jsonl(wd / path, qs)
        io.write_json(wd / f"results/questions/d/{m}.report.json", {"measure": m})
    for path, _, ps in prompts_for(qfiles):
        io.write_jsonl(wd / path, ps)
    io.write_parquet(wd / "results/data/d/interactions.parquet", INTER)
    io.write_parquet(wd / "results/data/d/items.parquet", items)
    io.write_json(wd / "results/data/d/ingest_report.json", {"interactions": len(INTER)})
    io.write_parquet(wd / "results/data/d/facts.parquet", facts if facts is not None else FACTS)


@pytest.mark.slow
def test_audit_rule_passes_then_fails_with_one_line(tmp_path):
    good = tmp_path / "good"
    _write(good, one())
    snakemake(good, "results/audit/d.json", "results/audit/d.md", snakefile=good / "Snakefile")
    audit = json.loads((good / "results/audit/d.json").read_text())
    assert audit["passed"] and audit["checked"] == {"questions": 4, "prompts": 4}
    assert (good / "results/audit/d.md").read_text().startswith("# Audit of `d`")

    bad = tmp_path / "bad"
    _write(bad, one(attr_genre=lambda q: q["candidates"].__setitem__(2, "War")))
    proc = snakemake(bad, "results/audit/d.json", snakefile=bad / "Snakefile", check=False)
    assert proc.returncode != 0
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.startswith("audit: ")]
    # (the witnessed facts say so too: the one more)
    assert lines == ["audit: results/questions/d/attr_genre.jsonl: d/attr_genre/uu: distractor_true_of_positive: "
                     "the distractor 'War' is a value of item 6 (and 1 more, see logs/audit/d.log)"]
    assert not (bad / "results/audit/d.json").exists() and not (bad / "results/audit/d.md").exists()

    # a wrong value written into items.parquet (item 6 a Comedy) and the question built from it:
    # the witnessed facts stop the build
    forged = tmp_path / "forged"
    items = ITEMS_X.assign(genres=[["Comedy"] if i == "6" else g for i, g in zip(ITEMS_X["item_id"], ITEMS_X["genres"])])
    _write(forged, one(attr_genre=lambda q: q.__setitem__("candidates", ["Comedy", "Horror", "Western", "Musical"])),
           items=items)
    proc = snakemake(forged, "results/audit/d.json", snakefile=forged / "Snakefile", check=False)
    assert proc.returncode != 0
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.startswith("audit: ")]
    assert lines == ["audit: results/questions/d/attr_genre.jsonl: d/attr_genre/uu: gold_not_witnessed: 'Comedy' is "
                     "not a witnessed value of item 6 in facts.parquet"]


def test_the_answer_jobs_wait_for_audit_all_and_the_audit_reads_the_artifacts():
    # with equal slot sequences across datasets the table still built (rc 0), because no
    # answer job read results/audit/_all.json
    raw = {"path": "raw"}
    cfg = fill_defaults({"datasets": {"a": {"domain": "movie", "format": "ml-100k", "source": raw,
                                            "measures": ["assoc_rule", "mem_item_item", "neu_user2items",
                                                         "neu_item2users", "attr_genre"]}},
                         "models": {"random": {"backend": "random"}}})
    plan = Plan(cfg, ROOT)
    assert plan.gate("lrworld", "a") == ["results/audit/a.json", "results/audit/_all.json"]
    assert plan.audit_artifacts("a") == ["results/gt/a/rules.parquet", "results/gt/a/item_similar_pairs.parquet",
                                         "results/gt/a/prototypes.parquet", "results/gt/a/embeddings.parquet",
                                         "results/gt/a/neumf.pt"]
