"""`lrworld plan`: the questions, prompts, answers and main jobs a config asks, before any data:
the paper's scale from config/paper.yaml (its Tables 12-14's counts), and the default run's."""

from pathlib import Path

import pytest
import yaml

from lrworld.cli import main
from lrworld.core.schema import ConfigError
from lrworld.paper import experiments
from lrworld.workflow.scale import load_plan, scale

ROOT = Path(__file__).resolve().parents[2]


def test_paper_config_asks_the_papers_counts():
    res = scale(ROOT, [ROOT / "config/paper.yaml"])
    amazon, ml25m, lastfm = (res["datasets"][d] for d in ("amazon", "ml25m", "lastfm"))
    # Amazon's counts: 118 + 305 + 3,546 + 1,000 + 1,000 + 2 x 2,591 + 3 x 1,304 + 2,530
    assert amazon["questions"] == 17593 and amazon["questions_per_measure"]["assoc_rule"] == 118
    assert ml25m["paper_table"] == "movielens" and ml25m["questions_per_measure"]["kg_cast"] == 297
    assert lastfm["questions"] == 2 * 122  # Table 7
    assert res["models"] == ["random"] and res["variants"] == ["zero_shot"]
    # RANDOM runs no experiment of the paper's (experiments: paper): zero-shot everywhere, one
    # prompt per question
    assert amazon["extra_variants"] == {} and amazon["prompts"] == 17593
    assert amazon["jobs"] == {"questions": 11, "prompts": 11, "answer": 1, "score": 11}
    assert res["total"]["questions"] == 17593 + 9621 + 11027 + 244 == 38_485  # the abstract's "over 38K"
    assert res["total"]["prompts"] == res["total"]["answers"] == 38_485
    every = scale(ROOT, [ROOT / "config/paper.yaml"], paper_models=True)
    a = every["datasets"]["amazon"]
    # Amazon's prompts: zero-shot, noisy on Table 23's 8 measures (2 x 2,591 + 3,546 + 1,000 + 3 x 1,304 +
    # 2,530 = 16,170), the image on its 2,530 multimodal questions (LlaVA-1.6, Table 4)
    assert a["prompts"] == 17593 + 16170 + 2530
    assert a["extra_variants"] == {**{m: ["noisy"] for m in (
        "mem_user_user", "neu_user2items", "kg_brand", "attr_color", "taxo_leaf", "taxo_interm", "taxo_root")},
        "multimodal": ["noisy", "visual"]}
    # answers per model: RANDOM and 11 rows of Table 2 on every measure, the 70B models (Table 25),
    # the GPT-4s on mem_item_item only (Table 5); noisy by Table 23's five; the image by LlaVA-1.6
    assert len(every["models"]) == 18 and a["answers"] == (1 + 11 + 3) * 17593 + 3 * 305 + 5 * 16170 + 2530
    assert a["jobs"]["score"] == 15 * 11 + 3 + 5 * 8 + 1  # a score job per (model, measure), one per ablation cell
    # Netflix: cot and k = 1..5 on its text (488) and user-user (3,059) questions by §5.4's five
    assert every["datasets"]["netflix"]["extra_variants"]["mem_user_user"] == ["cot", *(f"kshot{k}" for k in range(1, 6))]
    assert every["datasets"]["netflix"]["prompts"] == 9621 + 6 * (488 + 3059) + 432
    # the full cross product, named apart: every variant but noisy on every measure
    cross = scale(ROOT, [ROOT / "config/paper.yaml", ROOT / "config/paper_all_variants.yaml"])
    assert len(cross["variants"]) == 8 and cross["total"]["prompts"] == 8 * 38_485


def test_paper_config_variants_are_the_papers():
    """With every paper model, config/paper.yaml's variants per (dataset, measure) are those
    lrworld.paper.experiments reads from the paper's figures and tables, one for one."""
    plan = load_plan(ROOT, [ROOT / "config/paper.yaml"], paper_models=True)
    planned = {(plan.paper_dataset(d), m): tuple(plan.measure_variants(d, m))
               for d, spec in plan.datasets.items() for m in spec["measures"]}
    assert planned == experiments.variants_per_measure((1, 2, 3, 4, 5))


def test_default_run_and_cli(capsys):
    assert scale(ROOT)["datasets"]["ml100k"]["questions"] == 6 * 50
    assert main(["plan", "-d", str(ROOT)]) == 0
    # 6 measures x 50 questions; random, SmolLM2 and the 7 shortcut reference rows answer each:
    # 6 question + 6 prompt + 9 answer + 54 score jobs
    assert "total: 300 questions, 300 prompts, 2,700 answers, 75 question, prompt, answer and score jobs" in \
        capsys.readouterr().out


def test_paper_counts_for_a_dataset_the_paper_lacks(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump({"questions": {"per_measure": "paper"},
                                    "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "paper_table": None,
                                                        "source": {"path": "x"}, "measures": ["attr_genre"]}}}))
    with pytest.raises(ConfigError, match=r"^config: questions.per_measure: paper: datasets.ml: the paper has no "
                                          r"question count for 'attr_genre' on None"):
        scale(ROOT, [mine])
