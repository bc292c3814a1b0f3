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
    assert ("| qwen | Qwen-2 | attr_genre | zero_shot | 3 | Accuracy | 0.4000 [0.2600, 0.4800] | 50 | 0.4814 | 297 "
            "| -0.0814 | ✗ |") in md
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


def test_the_ablation_cells_the_paper_printed_stand_beside_ours():
    # Llama-3 on Amazon: kg_brand zero-shot and noisy (Table 23: 0.7252), a cot column the paper
    # prints nothing of; LlaVA-1.6's multimodal shown the image (Table 4: 0.4577)
    table = pd.DataFrame({"model": ["llama", "llava"], "kg_brand": [0.70, 0.5], "kg_brand@noisy": [0.60, None],
                          "kg_brand@cot": [0.5, None], "multimodal": [0.3, 0.35], "multimodal@visual": [None, 0.40],
                          "kg_brand@noisy_n": [100, None], "kg_brand@noisy_ci_low": [0.5, None],
                          "kg_brand@noisy_ci_high": [0.73, None], "multimodal@visual_ci_low": [None, 0.30],
                          "multimodal@visual_ci_high": [None, 0.44]})
    scores = [{"model": "llama", "measure": "kg_brand", "variant": "noisy", "n": 100, "missed": 3}]
    comp = P.comparison(table, scores, "product", "amazon", {"llama": "Llama-3", "llava": "LlaVA-1.6"})
    r = comp.set_index(["model", "measure", "variant"])
    assert r.loc[("llama", "kg_brand", "noisy"), ["paper", "paper_table", "n", "missed_rate"]].tolist() == [
        0.7252, "23", 100, 0.03]
    assert bool(r.loc[("llama", "kg_brand", "noisy"), "inside"])  # 0.7252 in [0.5, 0.73]
    assert pd.isna(r.loc[("llama", "kg_brand", "noisy"), "paper_missed_rate"])  # Tables 19-21: zero-shot only
    assert r.loc[("llava", "multimodal", "visual"), ["paper", "paper_table"]].tolist() == [0.4577, "4"]
    assert not bool(r.loc[("llava", "multimodal", "visual"), "inside"])  # 0.4577 above 0.44
    # Table 2's LlaVA-1.6 multimodal is Table 4's "text desc only", its zero-shot cell
    assert r.loc[("llava", "multimodal", "zero_shot"), "paper"] == 0.3442
    assert not any(v == "cot" for _, _, v in r.index)  # printed only as an image (Figure 5)
    section = "\n".join(P.beside_section(comp, table, "amazon"))
    assert section.startswith("## The paper's figures (its Table 2; Tables 4, 23 for rows and ablations it lacks")
    assert "| model (paper row) | kg_brand | kg_brand@noisy | multimodal | multimodal@visual |" in section
    assert "| llama (Llama-3) | 0.7348 | 0.7252 ✓ | 0.2861 |  |" in section
    assert "| llava (LlaVA-1.6) | 0.7263 |  | 0.3442 | 0.4577 ✗ |" in section


def test_five_answer_orders_stand_beside_the_papers_mean():
    orders = {f"kg_cast@shuffle{s}": [0.50 + s / 100] for s in range(1, 6)}  # 0.51 ... 0.55, mean 0.53
    table = pd.DataFrame({"model": ["llama"], "kg_cast": [0.5], **orders})
    comp = P.comparison(table, [], "movie", "movielens", {"llama": "Llama-3"})
    r = comp.set_index("variant").loc["shuffle (mean of 5)"]
    # Table 6: Llama-3 52.59 (accuracy x 100) over its five orders
    assert (r["paper"], r["paper_table"], round(r["ours"], 4), round(r["diff"], 4)) == (0.5259, "6", 0.53, 0.0041)
    assert r["ci_low"] is None and r["inside"] is None  # a mean of five, no interval
    # four orders are not the paper's five: no cell
    four = P.comparison(table.drop(columns=["kg_cast@shuffle5"]), [], "movie", "movielens", {"llama": "Llama-3"})
    assert list(four["variant"]) == ["zero_shot"]
