"""`lrworld plan` beside the paper's own run: per paper model, the prompts planned and those the
paper asked (lrworld.paper.experiments), for the paper's config only."""

from pathlib import Path

from lrworld.workflow import paper_run, scale

ROOT = Path(__file__).resolve().parents[2]


def test_the_paper_config_shows_each_models_prompts_beside_the_papers():
    plan = scale.load_plan(ROOT, [ROOT / "config/paper.yaml"], paper_models=True)
    res = paper_run.paper_run(plan, scale.scale(plan=plan))
    # the paper's variants per dataset and measure (extra_variants): a model in every experiment
    # plans what the paper asked of it
    every = {"zero_shot": 38_485, "cot": 488, "kshot": 488, "noisy": 16_170, "shuffle": 5 * 3 * 297}
    for model, name in (("llama3-8b-instruct", "Llama-3"), ("qwen2-7b-instruct", "Qwen-2"),
                        ("gpt-4o-mini-2024-07-18", "GPT-4o-mini")):
        assert res[model] == {"paper_name": name, "planned": 60_086, "paper": 60_086, "experiments": {
            e: {"planned": n, "paper": n} for e, n in every.items()}}
    # a model the paper ran on fewer experiments is planned every one: its noisy cells are extra
    assert res["falcon-7b-instruct"]["experiments"]["noisy"] == {"planned": 16_170, "paper": 0}
    # the GPT-4 family on Table 5's mem_item_item only (models.<m>.measures), GPT-4o also LastFM
    assert res["gpt-4-0613"] == {"paper_name": "GPT-4", "planned": 305 + 454, "paper": 305 + 454,
                                 "experiments": {"zero_shot": {"planned": 759, "paper": 759}}}
    assert res["gpt-4-turbo-2024-04-09"]["planned"] == res["gpt-4-turbo-2024-04-09"]["paper"] == 759
    assert res["gpt-4o-2024-05-13"]["planned"] == res["gpt-4o-2024-05-13"]["paper"] == 1_003
    # the 70B models: every Amazon measure with its noisy profiles (Table 25, Table 23's noisy rows)
    assert res["llama3-70b-instruct"]["planned"] == res["llama3-70b-instruct"]["paper"] == 33_763 + 3 * 488
    assert "random" not in res  # RANDOM's figures are expectations, not a run
    text = paper_run.format_paper_run(res)
    assert ("llama3-8b-instruct (Llama-3): 60,086 / 60,086 (1.0x): zero_shot 38,485 / 38,485, cot 488 / 488, "
            "kshot 488 / 488, noisy 16,170 / 16,170, shuffle 4,455 / 4,455") in text


def test_a_config_without_the_papers_counts_has_none():
    plan = scale.load_plan(ROOT)
    assert paper_run.paper_run(plan, scale.scale(plan=plan)) is None and paper_run.format_paper_run(None) == ""
