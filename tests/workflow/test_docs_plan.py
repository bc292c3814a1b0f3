"""The docs snippets in the plan (lrworld/workflow/docs.py): one per results table of the run, in
the default target, so `make run` rewrites the default-run table the docs quote."""

from lrworld.config import files
from lrworld.config.assembly import fill_defaults
from lrworld.workflow.plan import Plan
from tests.graph import ROOT


def plan(*overlays):
    return Plan(fill_defaults(files.load(ROOT, [ROOT / o for o in overlays])), ROOT)


def test_the_default_target_writes_the_default_run_snippet():
    p = plan()
    assert "docs/generated/ml100k.md" in p.all_targets()
    assert p.docs.inputs(type("wc", (), {"table": "ml100k"})) == {
        "md": "results/tables/ml100k.md", "csv": "results/tables/ml100k.csv",
        "record": "results/provenance/ml100k/table.json"}


def test_every_track_table_gets_a_snippet_and_an_overlay_can_leave_them_out():
    p = plan("config/llara.yaml")
    assert {"results/docs/generated/ml100k.md", "results/docs/generated/llara.md"} <= set(p.all_targets())
    assert p.docs.inputs(type("wc", (), {"table": "llara"}))["sources"] == p.llara.score_files()
    assert [t for t in plan(".ci/small.yaml").all_targets() if t.startswith("docs/")] == []


def test_only_the_default_config_writes_the_committed_snippets():
    """Another --configfile (or a --config that changes a key) writes its snippets under results/,
    so a run of it leaves the committed docs/generated/ as they are."""
    targets = [t for t in plan("config/paper.yaml").all_targets() if "generated/" in t]
    assert targets and all(t.startswith("results/docs/generated/") for t in targets)
    assert "results/docs/generated/netflix.md" in targets
    assert [t for t in plan().all_targets() if "generated/" in t] == ["docs/generated/ml100k.md"]
    cfg = files.load(ROOT, [])
    cfg["questions"]["per_measure"] = 7  # as `--config questions='{per_measure: 7}'` would
    other = Plan(fill_defaults(cfg), ROOT)
    assert [t for t in other.all_targets() if "generated/" in t] == ["results/docs/generated/ml100k.md"]


def test_the_tutorials_own_model_leaves_the_committed_snippet_alone(tmp_path):
    """docs/tutorial.md's "Add your own model" runs `--configfile config.yaml mine.yaml`, with the
    mine.yaml the page writes: its snippet goes under results/, so the checkout stays clean."""
    import re

    page = (ROOT / "docs/tutorial.md").read_text(encoding="utf-8")
    mine = tmp_path / "mine.yaml"
    mine.write_text(re.search(r"cat > mine\.yaml <<'YAML'\n(.*?)\nYAML\n", page, re.S).group(1))
    assert "--configfile config.yaml mine.yaml" in page
    p = Plan(fill_defaults(files.load(ROOT, [ROOT / "config.yaml", mine])), ROOT)
    assert "smollm2-server" in p.models
    assert [t for t in p.all_targets() if "generated/" in t] == ["results/docs/generated/ml100k.md"]
