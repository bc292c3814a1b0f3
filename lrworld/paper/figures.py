"""The LRWorld paper's published figures (arXiv 2512.17389), for the tables, cards and browser to
show beside ours.

`figures.tsv` holds one row per printed value: paper_table, dataset (the paper's: amazon,
movielens, netflix), model (the paper's row label, Table 15's names; empty where a table has no
model rows), measure (our measure id), metric, value. Metrics: `score` (Tables 2, 3, 22:
HitRate@1 or accuracy over all questions, a missed answer counting as wrong, as ours),
`missed_rate` (Tables 19-21), `correct_share_slot<k>` (Tables 12-14, percent of questions whose
gold answer sits in slot k), `prompt_tokens_total` (Tables 16-17, counted by GPT-3.5-Turbo's API),
`inference_time_s` (Table 18, its HH:MM:SS in seconds), `mean_x100` / `variance_x100` (Tables 6
and 11, accuracy x100 over five shuffles); the ablations `score_text_only` / `score_text_visual` /
`improvement_pct` (Table 4, and Table 25's `Improvement k` rows), `score` / `score_noisy` (Tables 5,
23, 25), Table 26's case study (`similarity_x100_slot<k>`, `gold_slot`, each GPT's `picked_slot`),
and LastFM's Table 7 (`count_*`, `questions`) and 8 (`score`). `models.tsv` is Table 15; `question_counts.tsv` the
questions per measure (see :func:`question_counts`).

RANDOM's 0.1000 / 0.2500 are the expected values of a uniform pick over 10 / 4 options, not a run.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from lrworld.models.registry import capabilities

HERE = Path(__file__).parent
DATA_FILES = ("figures.tsv", "models.tsv", "question_counts.tsv", "image_runs.tsv")

# the paper's results table of each of its datasets, and its missed-rate table
RESULTS_TABLE = {"amazon": "2", "movielens": "3", "netflix": "22"}
MISSED_TABLE = {"amazon": "19", "movielens": "20", "netflix": "21"}
TOKENS_TABLE = {"amazon": "16", "movielens": "17", "netflix": "17"}
PAPER_DATASETS = tuple(RESULTS_TABLE)
# the other tables that print zero-shot scores of models the results table has no row for: the
# 70B models on Amazon (Table 25, and 23's clean rows), the GPT-4s on mem_item_item (Table 5)
ZERO_SHOT_TABLES = {"amazon": ("25", "23", "5"), "netflix": ("5",)}

# The paper's column labels (its "Factors" row) and our measure ids, in its column order
PRODUCT_COLUMNS = (("Assoc rule", "assoc_rule"), ("Mem item-item", "mem_item_item"),
                   ("Mem user-user", "mem_user_user"), ("Neu emb item2users", "neu_item2users"),
                   ("Neu emb user2items", "neu_user2items"), ("KG (prod,brand)", "kg_brand"),
                   ("KG (prod,color)", "attr_color"), ("Taxo (prod, leaf)", "taxo_leaf"),
                   ("Taxo (prod, interm)", "taxo_interm"), ("Taxo (prod, root)", "taxo_root"),
                   ("Multimodal knowledge", "multimodal"))
MOVIE_COLUMNS = (("Assoc rule", "assoc_rule"), ("Mem item-item", "mem_item_item"),
                 ("Mem user-user", "mem_user_user"), ("Neu emb item2users", "neu_item2users"),
                 ("Neu emb user2items", "neu_user2items"), ("KG (movie,cast)", "kg_cast"),
                 ("KG (movie,director)", "kg_director"), ("KG (movie, genre)", "attr_genre"),
                 ("Text knowledge", "text_logline"), ("Multimodal knowledge", "multimodal"))
COLUMNS = {"amazon": PRODUCT_COLUMNS, "movielens": MOVIE_COLUMNS, "netflix": MOVIE_COLUMNS}
RANDOM = "RANDOM"
# Table 14's share columns printed under the other measure's head: {(dataset, measure): the
# measure whose shares they are} (their shares fit only the other column's count)
SWAPPED_SHARES = {("netflix", "text_logline"): "multimodal", ("netflix", "multimodal"): "text_logline"}
# questions.per_measure: paper asks each dataset the paper's count per measure
PAPER_COUNTS = "paper"


def _rows(name: str) -> list[dict]:
    with open(HERE / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@cache
def figures() -> tuple[dict, ...]:
    """Every transcribed value, `value` as a float."""
    return tuple({**r, "value": float(r["value"])} for r in _rows("figures.tsv"))


@cache
def _index() -> dict[tuple[str, str, str, str], float]:
    return {(r["paper_table"], r["model"], r["measure"], r["metric"]): r["value"] for r in figures()}


@cache
def _scores() -> dict[tuple[str, str, str, str], float]:
    """(table, dataset, model, measure) -> score: Table 5 prints two datasets."""
    return {(r["paper_table"], r["dataset"], r["model"], r["measure"]): r["value"] for r in figures()
            if r["metric"] == "score"}


def figure(paper_dataset: str, model: str, measure: str, metric: str = "score") -> float | None:
    """The paper's `metric` for its `model` on `measure` of `paper_dataset` (None where it has none:
    RANDOM has no missed rate, the movie tables no kg_brand)."""
    table = {"score": RESULTS_TABLE, "missed_rate": MISSED_TABLE}[metric].get(paper_dataset)
    return _index().get((table, model, measure, metric)) if table else None


def zero_shot_figure(paper_dataset: str, model: str, measure: str) -> tuple[str, float] | None:
    """(the table, the paper's zero-shot score) of `model` on `measure`: its results table's, else
    the first of `ZERO_SHOT_TABLES` that prints one (None: the paper has none)."""
    scores = _scores()
    for table in (RESULTS_TABLE.get(paper_dataset), *ZERO_SHOT_TABLES.get(paper_dataset, ())):
        value = scores.get((table, paper_dataset, model, measure))
        if value is not None:
            return table, value
    return None


def prompt_tokens_total(paper_dataset: str, measure: str) -> float | None:
    """Tables 16-17: the prompt tokens of every question of `measure`, by GPT-3.5-Turbo's count."""
    table = TOKENS_TABLE.get(paper_dataset)
    return next((r["value"] for r in figures() if r["paper_table"] == table and r["dataset"] == paper_dataset
                 and r["measure"] == measure and r["metric"] == "prompt_tokens_total"), None)


@cache
def models() -> dict[str, dict]:
    """Table 15: paper name -> {size, version, organization, url}."""
    return {r["paper_name"]: r for r in _rows("models.tsv")}


def model_names() -> list[str]:
    """Every row label a `paper_name:` may take: RANDOM and Table 15's names."""
    return [RANDOM, *models()]


@cache
def question_counts() -> dict[str, dict[str, int]]:
    """The paper's questions per measure: {paper dataset: {measure: n}}.

    The paper prints no counts. Every score and missed rate it prints (Tables 2, 3, 22, 19-21, the
    ablation Tables 23 and 25, Table 8 for LastFM) is k/n for a whole k, cut or rounded to four
    decimals, and every share of Tables 12-14 is 100 k/n to two; n is the smallest count under which
    all of a measure's figures are (tests/paper/test_question_counts.py derives it). Table 14 prints
    Netflix's text and multimodal share columns swapped against Tables 21-22 (`SWAPPED_SHARES`).
    The counts add up to 38,485 (the abstract: "over 38K samples")."""
    out: dict[str, dict[str, int]] = {}
    for r in _rows("question_counts.tsv"):
        out.setdefault(r["dataset"], {})[r["measure"]] = int(r["n"])
    return out


def paper_dataset(dataset_cfg: dict, by_format: str | None = None) -> str | None:
    """The paper's dataset a configured dataset is compared with: its `paper_table` key, else the
    one its format names (`by_format`: a Netflix layout's "netflix",
    lrworld.data.paper_dataset), else by domain (movie: movielens; product: amazon; lastfm: the
    mini LRWorld, which has question counts (Table 7) but no results table here)."""
    if "paper_table" in dataset_cfg:
        return dataset_cfg["paper_table"]
    if by_format:
        return by_format
    return {"movie": "movielens", "product": "amazon", "lastfm": "lastfm"}.get(dataset_cfg.get("domain"))


def paper_name(model_cfg: dict) -> str | None:
    """The paper's row a configured model is compared with: its `paper_name`, RANDOM for a backend
    that answers without reading the prompt (the random baseline)."""
    if model_cfg.get("paper_name"):
        return model_cfg["paper_name"]
    return RANDOM if model_cfg.get("backend") and not capabilities(model_cfg).reads_prompt else None
