"""The paper's figures as transcribed in lrworld/paper/ against the paper's own text: every value
re-read from the seed, in the order it is printed, so a typo in the data fails here."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from lrworld.paper import figures as P
from lrworld.questions import measures

SEED = "000_bb0cc0987894a751.txt"
PRODUCT = [m for _, m in P.PRODUCT_COLUMNS]
MOVIE = [m for _, m in P.MOVIE_COLUMNS]
# Tables 19-21 and 6/11 spell some rows differently from Tables 2, 3, 22 and 15
ALIAS = {"GPT-3.5": "GPT-3.5-Turbo", "Vicuna 1.5": "Vicuna-1.5", "LlaVA 1.6": "LlaVA-1.6", "Llama 3": "Llama-3",
         "Llama 3.1": "Llama-3.1"}
NUMBER = r"[0-9][0-9.:]*%?"


@pytest.fixture(scope="module")
def seed(shared_data) -> str:
    return (shared_data.parent / "seeds" / SEED).read_text(encoding="utf-8")


def _block(text: str, caption: str) -> str:
    """The table under `caption`: its flattened cells with the runs of empty ones dropped."""
    start = text.index(caption)
    return re.sub(r"(\| ){2,}", "| ", text[start:start + 7000])


def _printed(block: str, labels: list[str], width: int) -> list[tuple[str, list[str]]]:
    """(row label, its numbers) for the first row of each label, in the table's order."""
    alternatives = "|".join(re.escape(x) for x in sorted(labels, key=len, reverse=True))
    found = re.findall(rf"\| ({alternatives}) ((?:\| {NUMBER} ){{{width}}})", block)
    seen, out = set(), []
    for label, cells in found:
        if label not in seen:
            seen.add(label)
            out.append((label, re.findall(NUMBER, cells)))
    return out


def _value(cell: str) -> float:
    if ":" in cell:  # Table 18's H:MM:SS
        seconds = 0
        for part in cell.split(":"):
            seconds = seconds * 60 + int(part)
        return float(seconds)
    return float(cell.rstrip("%"))


def _ours(table: str, metric_prefix: str = "") -> dict[tuple[str, str, str], float]:
    return {(r["model"], r["measure"], r["metric"]): r["value"] for r in P.figures()
            if r["paper_table"] == table and r["metric"].startswith(metric_prefix)}


MODEL_ROWS = ["RANDOM", "Falcon", "Vicuna-1.5", "FLAN-T5", "Llama-3", "Llama-3.1", "Phi-3", "Mistral", "Qwen-2",
              "LlaVA-1.6", "GPT-3.5-Turbo", "GPT-3.5", "GPT-4o-mini"]
MODEL_TABLES = [  # (table, caption, measures, metric, rows printed)
    ("2", "Table 2. Results on LRWorld (Amazon)", PRODUCT, "score", 12),
    ("3", "Table 3. Results on LRWorld (MovieLens)", MOVIE, "score", 12),
    ("22", "Table 22. Results on LRWorld (Netflix)", MOVIE, "score", 12),
    ("19", "Table 19. Missed-rate on LRWorld (Amazon)", PRODUCT, "missed_rate", 11),
    ("20", "Table 20. Missed-rate on LRWorld (MovieLens)", MOVIE, "missed_rate", 11),
    ("21", "Table 21. Missed-rate on LRWorld (Netflix)", MOVIE, "missed_rate", 11),
    ("18", "Table 18. Inference Time of LLMs on LRWorld (Amazon)", PRODUCT, "inference_time_s", 11),
]


@pytest.mark.parametrize("table,caption,order,metric,n_rows", MODEL_TABLES, ids=[t[0] for t in MODEL_TABLES])
def test_every_model_row_is_the_papers(seed, table, caption, order, metric, n_rows):
    block = _block(seed, caption)
    # the measure of each column: the paper's "Factors" row names them in this order
    labels = P.PRODUCT_COLUMNS if order == PRODUCT else P.MOVIE_COLUMNS
    factors = block[block.index("| Factors |"):]
    heads = re.findall(r"\| ([A-Za-z][^|]*?) (?=\|)", factors[:1200])
    assert [h for h in heads if h in dict(labels)] [:len(labels)] == [label for label, _ in labels]
    rows = _printed(block, MODEL_ROWS, len(order))
    assert len(rows) == n_rows and rows[-1][0] == "GPT-4o-mini"
    ours = _ours(table)
    assert len(ours) == n_rows * len(order)  # no value the paper does not print
    for label, cells in rows:
        model = ALIAS.get(label, label)
        for measure, cell in zip(order, cells, strict=True):
            assert ours[(model, measure, metric)] == pytest.approx(_value(cell), abs=1e-12), (table, model, measure)


def test_random_is_the_uniform_pick():
    # the paper's RANDOM row is 1/10 for a HitRate@1 question, 1/4 for an MCQ
    for r in P.figures():
        if r["model"] == "RANDOM":
            m = measures.by_id(r["measure"])
            assert r["value"] == 1 / m.n_candidates


@pytest.mark.parametrize("table,caption", [("6", "Table 6. Variances over"), ("11", "Table 11. Average Accuracy")])
def test_variance_tables(seed, table, caption):
    labels = ["Falcon", "Vicuna 1.5", "FLAN-T5", "Llama-3.1", "Llama 3.1", "Llama-3", "Llama 3", "Phi-3", "Mistral",
              "Qwen-2", "LlaVA 1.6", "GPT-4o-mini"]
    rows = _printed(_block(seed, caption)[:2500], labels, 6)
    assert len(rows) == 10
    ours = _ours(table)
    assert len(ours) == 60
    for label, cells in rows:
        model = ALIAS.get(label, label)
        for i, measure in enumerate(["kg_cast", "kg_director", "attr_genre"]):
            assert ours[(model, measure, "mean_x100")] == float(cells[2 * i])
            assert ours[(model, measure, "variance_x100")] == float(cells[2 * i + 1])


SHARES = [("12", "amazon", "Table 12. The Distribution", PRODUCT), ("13", "movielens", "Table 13. The Distribution", MOVIE),
          ("14", "netflix", "Table 14. The Distribution", MOVIE)]


def _shares(seed, caption, order) -> dict[str, list[float]]:
    """measure -> the printed share (percent) of each gold slot, slot 1 first."""
    block = _block(seed, caption)
    out = defaultdict(list)
    for label in ["1=A", "2=B", "3=C", "4=D", "5", "6", "7", "8", "9", "10"]:
        cells = re.search(rf"\| {label} ((?:\| [0-9.]+% )+)", block).group(1)
        for measure, cell in zip(order, re.findall(NUMBER, cells)):
            out[measure].append(float(cell.rstrip("%")))
    return out


@pytest.mark.parametrize("table,dataset,caption,order", SHARES, ids=[s[0] for s in SHARES])
def test_gold_slot_shares(seed, table, dataset, caption, order):
    shares = _shares(seed, caption, order)
    ours = _ours(table, "correct_share_slot")
    assert len(ours) == sum(len(v) for v in shares.values())
    for measure, values in shares.items():
        assert len(values) == measures.by_id(measure).n_candidates
        for k, v in enumerate(values, 1):
            assert ours[("", measure, f"correct_share_slot{k}")] == v


# The question counts against every printed figure: tests/paper/test_question_counts.py


def test_token_tables(seed):
    b16 = _block(seed, "Table 16. The Statistics of the Tokens")
    b17 = _block(seed, "Table 17. The Statistics of the Tokens")
    printed = {("amazon", m): float(c) for m, c in zip(PRODUCT, re.findall(
        NUMBER, re.search(r"\| #tokens ((?:\| [0-9]+ )+)", b16).group(1)), strict=True)}
    for dataset, label in (("movielens", "MovieLens"), ("netflix", "Netflix")):
        cells = re.findall(NUMBER, re.search(rf"\| {label} ((?:\| [0-9]+ )+)", b17).group(1))
        printed.update({(dataset, m): float(c) for m, c in zip(MOVIE, cells, strict=True)})
    assert {k: P.prompt_tokens_total(*k) for k in printed} == printed
    assert sum(printed.values()) == pytest.approx(23.3e6, rel=0.01)  # the paper's "23M tokens"


def test_table_15(seed):
    block = seed[seed.index("Table 15. Details of the Evaluated"):][:3000]
    for name, row in P.models().items():
        assert f"| {name} | {row['size']} | {row['version']} | {row['organization']} | {row['url']} |" in block
    assert len(P.models()) == 18


def test_measures_and_models_are_ours():
    for r in P.figures():
        domain = {"amazon": "product", "lastfm": "lastfm"}.get(r["dataset"], "movie")
        if r["measure"] or r["paper_table"] != "7":  # Table 7's dataset counts have no measure
            measures.get(domain, r["measure"])  # raises for a measure the domain lacks
        # Table 25's relative improvements of a large model over its small one have no model row
        assert r["model"] in ("", *P.model_names()) or (
            r["paper_table"] == "25" and r["metric"] == "improvement_pct" and r["model"].startswith("Improvement "))


def test_paper_dataset_defaults():
    assert P.paper_dataset({"domain": "movie", "format": "recbole-atomic"}) == "movielens"
    assert P.paper_dataset({"domain": "movie", "format": "netflix-prize"}, by_format="netflix") == "netflix"
    assert P.paper_dataset({"domain": "product", "format": "amazon-2018"}) == "amazon"
    assert P.paper_dataset({"domain": "lastfm", "format": "lastfm-llara"}) == "lastfm"  # Table 7's counts only
    assert P.paper_dataset({"domain": "movie", "paper_table": None}) is None
    assert P.paper_name({"backend": "random"}) == "RANDOM"
    assert P.paper_name({"backend": "hf", "paper_name": "Qwen-2"}) == "Qwen-2"
    assert P.paper_name({"backend": "hf"}) is None
    assert P.figure("movielens", "Qwen-2", "assoc_rule") == 0.6547
    assert P.figure("netflix", "Mistral", "neu_item2users", "missed_rate") == 0.0489
    assert P.figure("movielens", "RANDOM", "assoc_rule", "missed_rate") is None
