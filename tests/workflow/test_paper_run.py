"""`lrworld plan` beside the paper's own run: per paper model, the prompts planned and those the
paper asked (lrworld.paper.experiments), for the paper's config only."""

from pathlib import Path

from lrworld.paper import figures as paper
from lrworld.workflow import paper_run, scale

ROOT = Path(__file__).resolve().parents[2]


def test_the_paper_config_plans_each_model_what_the_paper_asked_it():
    plan = scale.load_plan(ROOT, [ROOT / "config/paper.yaml"], paper_models=True)
    res = paper_run.paper_run(plan, scale.scale(plan=plan))
    # every model row of the paper, LlaVA-1.6 included, is planned exactly the prompts the paper asked it
    names = {r["paper_name"] for r in res.values()}
    assert names == set(paper.models()) - {"LLaRA"}  # LLaRA: the llara track's row
    assert all(r["planned"] == r["paper"] and all(e["planned"] == e["paper"] for e in r["experiments"].values())
               for r in res.values())
    # §5.4's five: every experiment, cot and kshot on Netflix's text (488) and user-user (3,059,
    # Figure 9) questions, k = 1..5 (analysis.kshot.series)
    every = {"zero_shot": 38_485, "cot": 3_547, "kshot": 5 * 3_547, "noisy": 16_170, "shuffle": 5 * 3 * 297}
    for model, name in (("llama3-8b-instruct", "Llama-3"), ("qwen2-7b-instruct", "Qwen-2"),
                        ("gpt-4o-mini-2024-07-18", "GPT-4o-mini")):
        assert res[model] == {"paper_name": name, "planned": 80_392, "paper": 80_392, "experiments": {
            e: {"planned": n, "paper": n} for e, n in every.items()}}
    # the issue's figures: a zero-shot-only row 42,696 (with Table 6's orders), GPT-3.5-Turbo 38,241,
    # Llama3.1-70B 17,593; LlaVA-1.6 also Table 4's image on the multimodal questions (3,069)
    assert res["falcon-7b-instruct"]["planned"] == 42_696 and "noisy" not in res["falcon-7b-instruct"]["experiments"]
    assert res["gpt-3.5-turbo-0125"]["planned"] == 38_241
    assert res["llama3.1-70b-instruct"]["planned"] == 17_593
    assert res["llava-v1.6-mistral-7b"]["experiments"] == {
        "zero_shot": {"planned": 38_241, "paper": 38_241}, "shuffle": {"planned": 4_455, "paper": 4_455},
        "visual": {"planned": 3_069, "paper": 3_069}}
    assert res["gpt-4-0613"] == {"paper_name": "GPT-4", "planned": 305 + 454, "paper": 305 + 454,
                                 "experiments": {"zero_shot": {"planned": 759, "paper": 759}}}
    assert res["gpt-4o-2024-05-13"]["planned"] == 1_003
    assert res["llama3-70b-instruct"]["planned"] == 17_593 + 16_170 + 7 * (488 + 3_059)
    assert "random" not in res  # RANDOM's figures are expectations, not a run
    text = paper_run.format_paper_run(res)
    assert ("llama3-8b-instruct (Llama-3): 80,392 / 80,392 (1.0x): zero_shot 38,485 / 38,485, cot 3,547 / 3,547, "
            "kshot 17,735 / 17,735, noisy 16,170 / 16,170, shuffle 4,455 / 4,455") in text
    assert "llava-v1.6-mistral-7b (LlaVA-1.6): 45,765 / 45,765 (1.0x)" in text


def test_a_model_of_ones_own_answers_the_zero_shot_set(tmp_path):
    """Beside the paper's rows, a model without `experiments: paper` is asked `variants` on every
    measure, and the paper's rows keep theirs."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("models:\n  mine: {backend: hf, model: some/model, enabled: true}\n"
                    "  gpt-4-0613: {enabled: true, experiments: paper}\n")
    plan = scale.load_plan(ROOT, [ROOT / "config/paper.yaml", mine])
    assert {v for d in plan.datasets for _, v in plan.model_cells("mine", d)} == {"zero_shot"}
    assert sum(plan.n_questions(d, m) for d in plan.datasets for m, _ in plan.model_cells("mine", d)) == 38_485
    assert [(d, plan.model_cells("gpt-4-0613", d)) for d in plan.datasets if plan.model_cells("gpt-4-0613", d)] == [
        ("amazon", [("mem_item_item", "zero_shot")]), ("netflix", [("mem_item_item", "zero_shot")])]
    # no model asks an ablation: only zero-shot prompts are built
    assert plan.all_variants == ["zero_shot"]


def test_a_config_without_the_papers_counts_has_none():
    plan = scale.load_plan(ROOT)
    assert paper_run.paper_run(plan, scale.scale(plan=plan)) is None and paper_run.format_paper_run(None) == ""


def test_the_table_record_names_every_variant_built_for_the_release():
    """`lrworld pack` releases the prompt files the table record's dataset entry names: the paper
    models' own variants are among them, as a dataset's extra_variants are."""
    from lrworld.release import layout

    plan = scale.load_plan(ROOT, [ROOT / "config/paper.yaml"], paper_models=True)
    entry = plan.provenance_table_config("netflix")["dataset"]["netflix"]
    assert entry["extra_variants"] == {m: ["cot", *(f"kshot{k}" for k in range(1, 6))]
                                       for m in ("mem_user_user", "text_logline")} | {"multimodal": ["visual"]}
    built = {b for _, b in layout.pairs("netflix", entry["measures"], plan.variants, entry["extra_variants"])
             if b.startswith("results/prompts/")}
    assert built == set(plan.prompt_files("netflix")) and len(built) == 10 + 2 * 6 + 1
    assert "extra_variants" not in scale.load_plan(ROOT, [ROOT / "config/paper.yaml"]).provenance_table_config(
        "netflix")["dataset"]["netflix"]  # RANDOM alone: zero-shot only
