"""The paper's ablation and LastFM tables as transcribed in lrworld/paper/figures.tsv (Tables 4, 5,
7, 8, 23, 25, 26), re-read from the paper's own text cell by cell, so a typo in the data fails here."""

from __future__ import annotations

import re

import pytest

from lrworld.paper import figures as P

SEED = "000_bb0cc0987894a751.txt"
NUMBER = r"-?[0-9][0-9.,]*%?"
# the factor order of each size / noise table's columns (its "Factor" row), our measure ids
T23 = ["neu_user2items", "mem_user_user", "taxo_root", "multimodal", "attr_color", "taxo_leaf", "taxo_interm",
       "kg_brand"]
T25 = ["neu_user2items", "neu_item2users", "mem_user_user", "taxo_root", "multimodal", "mem_item_item", "attr_color",
       "taxo_leaf", "taxo_interm", "assoc_rule", "kg_brand"]
# the tables' row labels and Table 15's names (models.tsv)
ROW = {"Llama3-8B": "Llama-3", "Llama3.1-8B": "Llama-3.1", "Qwen2-7B": "Qwen-2", "Llama3-70B": "Llama3-70B",
       "Llama3.1-70B": "Llama3.1-70B", "Qwen2-72B": "Qwen2-72B", "GPT-4o-mini": "GPT-4o-mini", "GPT-3.5": "GPT-3.5-Turbo",
       "GPT-4o": "GPT-4o", "GPT-4-Turbo": "GPT-4-Turbo", "GPT-4": "GPT-4", "LlaRA": "LLaRA", "Phi-3": "Phi-3",
       "Llama-3": "Llama-3", "Qwen-2": "Qwen-2", "Mistral": "Mistral"}


@pytest.fixture(scope="module")
def seed(shared_data) -> str:
    return (shared_data.parent / "seeds" / SEED).read_text(encoding="utf-8")


def _block(text: str, caption: str, size: int = 9000) -> str:
    start = text.index(caption)
    return re.sub(r"(\| ){2,}", "| ", text[start:start + size])


def _cells(block: str, label: str, width: int) -> list[str]:
    """The `width` numbers of the first row labelled exactly `label` (not `label-noise`)."""
    m = re.search(rf"\| {re.escape(label)} ((?:\| {NUMBER} ){{{width}}})", block)
    assert m, label
    return [c.rstrip("%").replace(",", "") for c in re.findall(NUMBER, m.group(1))]


def _ours(table: str) -> dict[tuple[str, str, str, str], str]:
    return {(r["dataset"], r["model"], r["measure"], r["metric"]): r["value"] for r in P._rows("figures.tsv")
            if r["paper_table"] == table}


def _same(ours: dict, printed: dict) -> None:
    assert ours == printed  # every value, and no value the paper does not print


def test_table_23_noisy_profiles(seed):
    block, printed = _block(seed, "Table 23. Robustness to Noisy"), {}
    for label in ("Llama3-8B", "Llama3-70B", "Qwen2-7B", "Qwen2-72B", "GPT-4o-mini"):
        for suffix, metric in (("", "score"), ("-noise", "score_noisy")):
            for measure, v in zip(T23, _cells(block, label + suffix, 8)):
                printed[("amazon", ROW[label], measure, metric)] = v
    assert len(printed) == 80
    _same(_ours("23"), printed)


def test_table_25_model_sizes(seed):
    block, printed = _block(seed, "Table 25. Effect of Sizes"), {}
    for label in ("Llama3-8B", "Llama3.1-8B", "Qwen2-7B", "Llama3-70B", "Llama3.1-70B", "Qwen2-72B"):
        for measure, v in zip(T25, _cells(block, label, 11)):
            printed[("amazon", ROW[label], measure, "score")] = v
    for k in (1, 2, 3):
        for measure, v in zip(T25, _cells(block, f"Improvement {k}", 11)):
            printed[("amazon", f"Improvement {k}", measure, "improvement_pct")] = v
    assert len(printed) == 99
    _same(_ours("25"), printed)
    # the 70B rows are Table 15's, so a config's paper_name puts them beside our rows
    assert {"Llama3-70B", "Llama3.1-70B", "Qwen2-72B"} <= set(P.model_names())


def test_table_4_multimodality(seed):
    block, printed = _block(seed, "Table 4. Effect of Textual", 600), {}
    for label, metric in (("Image’s text desc Only", "score_text_only"),
                          ("Image’s text desc + Visual", "score_text_visual"), ("Improvement", "improvement_pct")):
        for ds, v in zip(("amazon", "movielens", "netflix"), _cells(block, label, 3)):
            printed[(ds, "LlaVA-1.6", "multimodal", metric)] = v
    _same(_ours("4"), printed)


def test_table_5_gpt_versions(seed):
    block, printed = _block(seed, "Table 5. Effect of Different Versions", 900), {}
    heads = ["GPT-3.5", "GPT-4o-mini", "GPT-4o", "GPT-4-Turbo", "GPT-4"]
    assert block.index("| GPT-3.5 | GPT-4o-mini | GPT-4o | GPT-4-Turbo | GPT-4 |") > 0
    for ds, label in (("amazon", "LRWorld-Amazon"), ("netflix", "LRWorld-Netflix")):
        values = _cells(block, label, 6)
        best = re.search(rf"\| {label} (?:\| {NUMBER} ){{6}}\((\S+)\)", block).group(1)
        for model, v in zip([*heads, best], values):
            printed[(ds, ROW[model], "mem_item_item", "score")] = v
    _same(_ours("5"), printed)


def test_tables_7_and_8_lastfm(seed):
    block = _block(seed, "Table 7. Statistics of the Mini", 1200)
    artists, listenings, genres, next_artist, genre_q = re.findall(r"\| ([0-9][0-9,]*) (?=\|)", block)[:5]
    printed = {("lastfm", "", "", "count_artists"): artists, ("lastfm", "", "", "count_listenings"): listenings,
               ("lastfm", "", "", "count_genres"): genres, ("lastfm", "", "next_artist", "questions"): next_artist,
               ("lastfm", "", "attr_artist_genre", "questions"): genre_q}
    _same(_ours("7"), {k: v.replace(",", "") for k, v in printed.items()})
    block, printed = _block(seed, "Table 8. Pros and Cons", 700), {}
    heads = ["Phi-3", "Llama-3", "Qwen-2", "GPT-4o-mini", "GPT-4o", "LlaRA"]
    for label, measure in (("<history, next-artist>", "next_artist"), ("<artist, genre>", "attr_artist_genre")):
        for model, v in zip(heads, _cells(block, label, 6)):
            printed[("lastfm", ROW[model], measure, "score")] = v
    _same(_ours("8"), printed)


def test_table_26_case_study(seed):
    # one Netflix mem_item_item question: each slot's similarity to the target (x100), the gold's
    # slot, and each GPT's pick (Table 5's models)
    block = seed[seed.index("Table 26. A Case Study"):seed.index("Table 27. A Brief Summary")]
    cell = r"(?:[^|\\]|\\\|)+"  # a title may hold escaped pipes (Dramas\|Thrillers)
    sims = re.findall(rf"\| (\d+)(?: \(Ground Truth\))? \| {cell}\| {cell}\| ({NUMBER}) \|", block)
    printed = {("netflix", "", "mem_item_item", f"similarity_x100_slot{k}"): v for k, v in sims}
    printed[("netflix", "", "mem_item_item", "gold_slot")] = re.search(r"\| (\d+) \(Ground Truth\)", block).group(1)
    for model, slot in re.findall(r"\| (GPT-[\w.-]+) \| (\d+)\b", block):
        printed[("netflix", ROW.get(model, model), "mem_item_item", "picked_slot")] = slot
    assert len(printed) == 10 + 1 + 5
    _same(_ours("26"), printed)
    # its models are Table 5's, whose zero-shot figures stand beside the same runs
    assert {m for (_, m, _, metric) in printed if metric == "picked_slot"} == {
        r["model"] for r in P.figures() if r["paper_table"] == "5" and r["dataset"] == "netflix"} - {"Mistral"}
