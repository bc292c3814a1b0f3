"""The measure card, the HTML table, and the config keys of the analyses."""

import copy
from pathlib import Path

import pandas as pd
import pytest
import yaml

from lrworld.config import assembly as lrw_config
from lrworld.core.schema import ConfigError
from lrworld.config import files as config_files
from lrworld.analysis.output import to_html
from lrworld.analysis.report_cards import card_html

ROOT = Path(__file__).resolve().parents[2]


def test_card_shows_template_example_gold_and_scores_with_ci():
    example = {"qid": "d/attr_genre/u1", "prompt": "Pick <one>:\nA. Drama\nB. War", "labels": ["A", "B"],
               "candidates": ["Drama", "War"], "answer_index": 1}
    scores = pd.DataFrame([{"model": "smol", "measure": "attr_genre", "variant": "zero_shot", "n": 30,
                            "missed_rate": 0.1, "value": 0.5, "ci_low": 0.3, "ci_high": 0.7},
                           {"model": "random", "measure": "attr_genre", "variant": "zero_shot", "n": 30,
                            "missed_rate": 0.0, "value": 0.25, "ci_low": 0.1, "ci_high": 0.4}])
    page = card_html("d", "attr_genre", "Tpl ${history}", example, scores, ["smol", "random"], "desc")
    assert "Tpl ${history}" in page and "Pick &lt;one&gt;:" in page  # escaped, not markup
    assert "B. War (gold)" in page and "Gold answer: <b>B. War</b>" in page
    assert page.index(">random<") < page.index(">smol<")  # RANDOM first
    assert "[0.3000, 0.7000]" in page and "0.1000" in page
    assert "paper (" not in page  # no paper figures given: no paper columns


def test_card_shows_the_papers_figure_beside_zero_shot_rows():
    example = {"qid": "d/attr_genre/u1", "prompt": "p", "labels": ["A", "B"], "candidates": ["Drama", "War"],
               "answer_index": 0}
    row = {"measure": "attr_genre", "n": 30, "missed_rate": 0.0, "value": 0.25, "ci_low": 0.1, "ci_high": 0.4}
    scores = pd.DataFrame([{"model": "random", "variant": "zero_shot", **row},
                           {"model": "random", "variant": "cot", **row},
                           {"model": "qwen", "variant": "zero_shot", **row}])
    # Table 3: RANDOM 0.2500 (inside [0.1, 0.4]), Qwen-2 <movie, genre> 0.4814 (outside)
    page = card_html("d", "attr_genre", "t", example, scores, ["random", "qwen"], "", {"random": 0.25, "qwen": 0.4814},
                     "Table 3, LRWorld-movielens")
    assert "<th>paper (Table 3, LRWorld-movielens)</th>" in page
    assert "<td class=n>0.2500</td><td>inside</td>" in page and "<td class=n>0.4814</td><td>outside</td>" in page
    assert page.count("<td></td><td></td>") == 1  # the cot row: the paper has no cot cell
    assert "Short measure" not in page
    short = card_html("d", "attr_genre", "Tpl", example, scores, ["smol"], "desc",
                      short="137 of 200 questions: 400 targets tried (dropped_margin 201)")
    assert "<b>\u00a7 Short measure:</b> 137 of 200 questions: 400 targets tried (dropped_margin 201)" in short


def test_card_of_a_knowledge_measure_says_how_many_sources_back_its_golds():
    from lrworld.questions.witnesses import describe, summary

    example = {"qid": "d/kg_director/u1", "prompt": "p", "labels": ["A", "B"], "candidates": ["X", "Y"],
               "answer_index": 0}
    scores = pd.DataFrame([{"model": "random", "measure": "kg_director", "variant": "zero_shot", "n": 3,
                            "missed_rate": 0.0, "value": 0.25, "ci_low": 0.1, "ci_high": 0.4}])
    got = summary({"questions": 3, "facts": {"witnesses": {"1": 3}, "sources": {"hetrec_directors": 3}}})
    page = card_html("d", "kg_director", "t", example, scores, ["random"], witnessed=describe(got))
    assert "<b>\u2021 Sources per gold:</b> 100% single-source (hetrec_directors)" in page
    assert "Sources per gold" not in card_html("d", "kg_director", "t", example, scores, ["random"])


def test_html_table():
    page = to_html(pd.DataFrame({"m": ["<x>"], "v": [0.5]}), "T & t", "note")
    assert "<table" in page and "&lt;x&gt;" in page and "0.5000" in page and "T &amp; t" in page


def _base():
    return yaml.safe_load((ROOT / "config.yaml").read_text())


def test_config_accepts_the_variants_and_the_ablation_file():
    cfg = config_files.load(ROOT, [ROOT / "config/ablation.yaml"])  # as the graph combines them
    lrw_config.validate(cfg)
    assert cfg["analysis"]["enabled"] and "shuffle5" in cfg["variants"]


@pytest.mark.parametrize("bad", [{"variants": ["fewshot"]}, {"variants": ["shuffle"]},
                                 {"analysis": {"kshot": {"k": 0}}}, {"analysis": {"bootstap": 10}}])
def test_config_rejects_bad_analysis_keys(bad):
    cfg = copy.deepcopy(_base())
    cfg.update(bad)
    with pytest.raises(ConfigError):
        lrw_config.validate(cfg)
