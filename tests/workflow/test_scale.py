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
    # zero-shot everywhere, noisy on Amazon's 8 profile measures (Table 23: 2 x 2,591 + 3,546 + 2 x 1,000
    # - 1,000 + 3 x 1,304 + 2,530 = 16,170), five answer orders on MovieLens' 3 knowledge measures,
    # chain of thought and k-shot on Netflix's text measure
    assert amazon["extra_variants"] == {m: ["noisy"] for m in (
        "mem_user_user", "neu_user2items", "kg_brand", "attr_color", "taxo_leaf", "taxo_interm", "taxo_root", "multimodal")}
    assert amazon["prompts"] == 17593 + 16170
    assert amazon["jobs"] == {"questions": 11, "prompts": 19, "answer": 1, "score": 11 + 8}
    assert ml25m["prompts"] == 11027 + 5 * 3 * 297 and res["datasets"]["netflix"]["prompts"] == 9621 + 2 * 488
    assert res["total"]["questions"] == 17593 + 9621 + 11027 + 244 == 38_485  # the abstract's "over 38K"
    assert res["total"]["prompts"] == 60_086 == experiments.prompts_per_model()["Llama-3"]
    every = scale(ROOT, [ROOT / "config/paper.yaml"], paper_models=True)
    # the GPT-4s answer Amazon's mem_item_item only (config/paper.yaml's `measures`, Table 5)
    assert len(every["models"]) == 17 and every["datasets"]["amazon"]["answers"] == 14 * (17593 + 16170) + 3 * 305
    # the full cross product, named apart: every variant but noisy on every measure, noisy where planned
    cross = scale(ROOT, [ROOT / "config/paper.yaml", ROOT / "config/paper_all_variants.yaml"])
    assert len(cross["variants"]) == 8 and cross["total"]["prompts"] == 8 * 38_485 + 16_170


def test_paper_config_variants_are_the_papers():
    """config/paper.yaml's variants per (dataset, measure) are those lrworld.paper.experiments reads
    from the paper's printed figures, one for one."""
    plan = load_plan(ROOT, [ROOT / "config/paper.yaml"])
    planned = {(plan.paper_dataset(d), m): tuple(plan.measure_variants(d, m))
               for d, spec in plan.datasets.items() for m in spec["measures"]}
    assert planned == experiments.variants_per_measure()


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
