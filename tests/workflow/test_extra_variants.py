"""`datasets.<name>.extra_variants`: the variants a measure is asked in besides `variants`. The
plan's prompt, response and score files, `lrworld plan`'s counts and the graph's jobs follow it
(one `score_extra` and one `provenance_extra` job per extra cell), and a name that cannot run is
refused at start in one line."""

from pathlib import Path

import pytest
import yaml

from lrworld.core.schema import ConfigError
from lrworld.workflow import scale
from tests.graph import job_counts, snakemake
from tests.support.names import unregistered_variant

ROOT = Path(__file__).resolve().parents[2]
BASE = yaml.safe_load((ROOT / "config.yaml").read_text())
UNKNOWN = unregistered_variant("flip")  # a variant name no registered kind matches


def _mine(tmp_path, extra) -> Path:
    ds = dict(BASE["datasets"]["ml100k"], extra_variants=extra)
    (tmp_path / "config.yaml").write_text((ROOT / "config.yaml").read_text())
    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump({"models": {"random": {"enabled": True}}, "datasets": {"ml100k": ds}}))
    return mine


def test_the_plan_asks_each_measure_its_variants(tmp_path):
    plan = scale.load_plan(ROOT, [_mine(tmp_path, {"attr_genre": ["noisy", "shuffle1"], "assoc_rule": ["shuffle1"]})])
    assert plan.measure_variants("ml100k", "attr_genre") == ["zero_shot", "noisy", "shuffle1"]
    assert plan.measure_variants("ml100k", "mem_item_item") == ["zero_shot"]
    assert plan.all_variants == ["zero_shot", "shuffle1", "noisy"] and plan.extra_variants == ["shuffle1", "noisy"]
    prompts = plan.prompt_files("ml100k")
    assert len(prompts) == 6 + 3 and "results/prompts/ml100k/attr_genre/noisy.jsonl" in prompts
    assert "results/prompts/ml100k/mem_item_item/noisy.jsonl" not in prompts
    assert len(plan.score_files("ml100k")) == len(plan.responses_files("ml100k")) == 9
    # an extra cell's own score job, which its record cites
    assert plan.score_job("ml100k", "random", "attr_genre", "noisy") == \
        "results/provenance/ml100k/random/attr_genre/noisy.score-job.json"
    assert plan.score_job("ml100k", "random", "attr_genre", "zero_shot") == \
        "results/provenance/ml100k/random/attr_genre.score-job.json"
    # the answer-order analysis reads each shuffle cell; its table is built where a measure has one
    assert plan.analysis.shuffle_prompts("ml100k") == ["results/prompts/ml100k/assoc_rule/shuffle1.jsonl",
                                                       "results/prompts/ml100k/attr_genre/shuffle1.jsonl"]
    res = scale.scale(plan=plan)["datasets"]["ml100k"]
    assert res["prompts"] == (6 + 3) * 50 and res["jobs"] == {"questions": 6, "prompts": 9, "answer": 1, "score": 9}


def test_the_graph_plans_one_job_per_extra_cell(tmp_path):
    mine = _mine(tmp_path, {"attr_genre": ["noisy", "shuffle1"], "assoc_rule": ["shuffle1"]})
    counts = job_counts(snakemake(tmp_path, "--configfile", str(mine), "-n").stdout)
    assert (counts["prompts"], counts["score"], counts["score_extra"], counts["provenance"],
            counts["provenance_extra"]) == (9, 6, 3, 6, 3)
    # the answer-order and noisy-profile analyses of the measures that have those cells
    assert counts["analysis_position"] == counts["analysis_noise"] == 1 and "analysis_kshot" not in counts


@pytest.mark.parametrize("extra,line", [
    ({"kg_brand": ["noisy"]}, "datasets.ml100k.extra_variants.kg_brand: not a measure of datasets.ml100k"),
    ({"mem_item_item": ["noisy"]}, "variants: noisy replaces an item of the user profile .* 'mem_item_item' shows none"),
    ({"attr_genre": [UNKNOWN]}, f"datasets.ml100k.extra_variants.attr_genre.0: '{UNKNOWN}' does not match"),
    ({"attr_genre": ["kshot0"]}, "datasets.ml100k.extra_variants.attr_genre.0: 'kshot0': k = 0 solved examples"),
])
def test_a_variant_that_cannot_run_is_refused(tmp_path, extra, line):
    with pytest.raises(ConfigError, match=line) as info:
        scale.load_plan(ROOT, [_mine(tmp_path, extra)])
    assert "\n" not in str(info.value)


def test_a_release_carries_and_serves_each_measures_variants():
    from lrworld.release import layout, source

    pairs = layout.pairs("d", ["a", "b"], ["zero_shot"], {"b": ["noisy"]})
    assert [r for r, _ in pairs if r.startswith("prompts/")] == [
        "prompts/a/zero_shot.jsonl", "prompts/b/zero_shot.jsonl", "prompts/b/noisy.jsonl"]
    man = {"domain": "movie", "measures": ["a", "b"], "variants": ["zero_shot"], "files": dict.fromkeys(r for r, _ in pairs)}
    assert source.problem("d", man, "rel", measures=["a", "b"], variants=["zero_shot"],
                          extra_variants={"b": ["noisy"]}) is None
    assert source.problem("d", man, "rel", measures=["a", "b"], variants=["zero_shot"], extra_variants={
        "a": ["noisy"]}) == "config: datasets.d.extra_variants.a: 'noisy' has no prompts for 'a' in the release rel"
