"""`models.<name>.measures`: the (dataset, measures) a model answers; the plan's prompt, response
and score files, its answer requests and its counts follow it, and a name that is not planned is
refused at start in one line."""

from pathlib import Path

import pytest

from lrworld.core.schema import ConfigError
from lrworld.workflow import scale

ROOT = Path(__file__).resolve().parents[2]


def _plan(tmp_path, measures):
    (tmp_path / "mine.yaml").write_text(
        "models:\n  random: {enabled: true}\n"
        f"  other: {{backend: random, seed: 3, measures: {measures}}}\n")
    return scale.load_plan(ROOT, [tmp_path / "mine.yaml"])


def test_a_model_answers_only_its_measures(tmp_path):
    plan = _plan(tmp_path, "{ml100k: [attr_genre, assoc_rule]}")
    assert plan.model_measures("other", "ml100k") == ["assoc_rule", "attr_genre"]  # in the dataset's order
    assert plan.model_measures("random", "ml100k") == plan.datasets["ml100k"]["measures"]
    assert {f.split("/")[3] for f in plan.requests("lrworld", "ml100k", "other")} == {"assoc_rule", "attr_genre"}
    scores = plan.score_files("ml100k")
    assert len(scores) == (6 + 2) * len(plan.variants)
    assert not any("/other/mem_item_item/" in f for f in scores + plan.responses_files("ml100k"))
    res = scale.scale(plan=plan)["datasets"]["ml100k"]
    assert res["answers"] == (6 + 2) * 50 * len(plan.variants) and res["jobs"]["score"] == 8
    assert "measures" not in plan.model_params("other")  # which jobs exist, not how one answers


@pytest.mark.parametrize("measures,line", [
    ("{amazon: [assoc_rule]}", "models.other.measures.amazon: no dataset of that name is planned"),
    ("{ml100k: [kg_brand]}", "models.other.measures.ml100k: 'kg_brand' is not a measure of datasets.ml100k"),
])
def test_a_name_not_planned_is_refused(tmp_path, measures, line):
    with pytest.raises(ConfigError, match=line):
        _plan(tmp_path, measures)
