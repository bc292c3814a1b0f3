"""Our cells beside the LRWorld paper's Table 3: the paper's figure, the difference, and whether it
lies inside our interval, by hand on a two-model table."""

import pandas as pd

from lrworld.scoring import paper_comparison as P


def _table():
    # as the results .csv: a value column per measure (one cot column the paper has none of)
    return pd.DataFrame({
        "model": ["random", "qwen", "smol"],
        "assoc_rule": [0.08, 0.70, 0.30], "attr_genre": [0.26, 0.40, 0.25], "assoc_rule@cot": [0.1, 0.2, 0.3],
        "assoc_rule_n": [50, 50, 50], "attr_genre_n": [50, 50, 48],
        "assoc_rule_ci_low": [0.02, 0.56, 0.18], "assoc_rule_ci_high": [0.16, 0.82, 0.42],
        "attr_genre_ci_low": [0.14, 0.26, 0.13], "attr_genre_ci_high": [0.38, 0.48, 0.38],
    })


SCORES = [{"model": "qwen", "measure": "assoc_rule", "variant": "zero_shot", "n": 50, "missed": 2},
          {"model": "qwen", "measure": "assoc_rule", "variant": "cot", "n": 50, "missed": 9}]
NAMES = {"random": "RANDOM", "qwen": "Qwen-2", "smol": None}


def test_every_paper_cell_beside_ours():
    comp = P.comparison(_table(), SCORES, "movie", "movielens", NAMES)
    assert list(comp["model"]) == ["random", "random", "qwen", "qwen"]  # smol has no paper row, cot no paper cell
    r = comp.set_index(["model", "measure"])
    # Table 3: RANDOM 0.1000 / 0.2500, Qwen-2 assoc_rule 0.6547, <movie, genre> 0.4814
    assert list(r["paper"]) == [0.1, 0.25, 0.6547, 0.4814]
    assert r.loc[("qwen", "assoc_rule"), "diff"] == 0.70 - 0.6547
    assert bool(r.loc[("qwen", "assoc_rule"), "inside"]) and not bool(r.loc[("qwen", "attr_genre"), "inside"])
    assert bool(r.loc[("random", "assoc_rule"), "inside"])
    assert r.loc[("qwen", "assoc_rule"), "missed_rate"] == 0.04  # zero-shot's 2 of 50, not cot's
    assert r.loc[("qwen", "assoc_rule"), "paper_missed_rate"] == 0.0  # Table 20
    assert pd.isna(r.loc[("random", "assoc_rule"), "paper_missed_rate"])  # the paper prints none for RANDOM
    assert list(r["paper_n"]) == [3238, 297, 3238, 297]
    assert set(r["paper_table"]) == {"3"} and list(r["metric"]) == ["HitRate@1", "Accuracy"] * 2


def test_markdown_and_section():
    comp = P.comparison(_table(), SCORES, "movie", "movielens", NAMES)
    md = P.to_markdown(comp, "ml100k", "movielens")
    assert md.startswith("# ml100k beside the LRWorld paper (its Table 3, LRWorld-MovieLens)")
    assert "| qwen | Qwen-2 | attr_genre | Accuracy | 0.4000 [0.2600, 0.4800] | 50 | 0.4814 | 297 | -0.0814 | ✗ |" in md
    assert "3 of 4 of the paper's figures lie inside our interval." in md
    section = "\n".join(P.beside_section(comp, _table(), "movielens"))
    assert "| random (RANDOM) | 0.1000 ✓ | 0.2500 ✓ |" in section and "| qwen (Qwen-2) | 0.6547 ✓ | 0.4814 ✗ |" in section


def test_no_paper_table_or_row():
    assert P.comparison(_table(), SCORES, "movie", None, NAMES).empty
    empty = P.comparison(_table(), SCORES, "movie", "movielens", {"random": None})
    assert empty.empty and list(empty.columns) == P.COLUMNS
    assert "no model of the run has a paper row" in P.to_markdown(empty, "ml", "movielens")
    assert "the paper reports no results table" in P.to_markdown(empty, "lfm", "lastfm")
    assert P.beside_section(empty, _table(), "movielens") == []


def test_a_model_the_results_table_lacks_stands_beside_its_ablation_figure():
    table = pd.DataFrame({"model": ["llama70", "gpt4"], "neu_user2items": [0.11, 0.12], "mem_item_item": [0.5, 0.6],
                          "neu_user2items_ci_low": [0.09, 0.1], "neu_user2items_ci_high": [0.13, 0.14],
                          "mem_item_item_ci_low": [0.4, 0.5], "mem_item_item_ci_high": [0.6, 0.7]})
    comp = P.comparison(table, [], "product", "amazon", {"llama70": "Llama3-70B", "gpt4": "GPT-4"})
    r = comp.set_index(["model", "measure"])
    # Table 25: Llama3-70B 0.104 on neu_user2items, 0.5639 on mem_item_item; Table 5: GPT-4 0.5901
    assert r.loc[("llama70", "neu_user2items"), ["paper", "paper_table"]].tolist() == [0.104, "25"]
    assert r.loc[("llama70", "mem_item_item"), ["paper", "paper_table"]].tolist() == [0.5639, "25"]
    assert r.loc[("gpt4", "mem_item_item"), ["paper", "paper_table"]].tolist() == [0.5901, "5"]
    assert ("gpt4", "neu_user2items") not in r.index  # the paper ran GPT-4 on Table 5's measure only
