"""`lrworld plan` beside the paper's own run: per paper model, the prompts planned and those the
paper asked (lrworld.paper.experiments), for the paper's config only."""

from pathlib import Path

from lrworld.workflow import paper_run, scale

ROOT = Path(__file__).resolve().parents[2]


def test_the_paper_config_shows_each_models_prompts_beside_the_papers():
    plan = scale.load_plan(ROOT, [ROOT / "config/paper.yaml"], paper_models=True)
    res = paper_run.paper_run(plan, scale.scale(plan=plan))
    assert res["llama3-8b-instruct"] == {"paper_name": "Llama-3", "planned": 8 * 38_485, "paper": 60_086}
    assert res["gpt-4-0613"] == {"paper_name": "GPT-4", "planned": 8 * 759, "paper": 759}  # models.<m>.measures
    assert res["gpt-4o-2024-05-13"]["paper"] == 1_003 and res["llama3.1-70b-instruct"]["planned"] == 8 * 17_593
    assert "random" not in res  # RANDOM's figures are expectations, not a run
    text = paper_run.format_paper_run(res)
    assert "llama3-8b-instruct (Llama-3): 307,880 / 60,086 (5.1x)" in text


def test_a_config_without_the_papers_counts_has_none():
    plan = scale.load_plan(ROOT)
    assert paper_run.paper_run(plan, scale.scale(plan=plan)) is None and paper_run.format_paper_run(None) == ""
