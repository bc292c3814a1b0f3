"""The LRWorld paper's published figures (arXiv 2512.17389), for the tables, cards and browser to
show beside ours.

`figures.tsv` holds one row per printed value: paper_table, dataset (the paper's: amazon,
movielens, netflix), model (the paper's row label, Table 15's names; empty where a table has no
model rows), measure (our measure id), metric, value. Metrics: `score` (Tables 2, 3, 22:
HitRatio@1 or accuracy over all questions, a missed answer counting as wrong, as ours),
`missed_rate` (Tables 19-21), `correct_share_slot<k>` (Tables 12-14, percent of questions whose
gold answer sits in slot k), `prompt_tokens_total` (Tables 16-17, counted by GPT-3.5-Turbo's API),
`inference_time_s` (Table 18, its HH:MM:SS in seconds), `mean_x100` / `variance_x100` (Tables 6
and 11, accuracy x100 over five shuffles). `models.tsv` is Table 15; `question_counts.tsv` the
questions per measure (see :func:`question_counts`).

RANDOM's 0.1000 / 0.2500 are the expected values of a uniform pick over 10 / 4 options, not a run.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from lrworld.models.registry import capabilities

HERE = Path(__file__).parent
DATA_FILES = ("figures.tsv", "models.tsv", "question_counts.tsv")

# the paper's results table of each of its datasets, and its missed-rate table
RESULTS_TABLE = {"amazon": "2", "movielens": "3", "netflix": "22"}
MISSED_TABLE = {"amazon": "19", "movielens": "20", "netflix": "21"}
TOKENS_TABLE = {"amazon": "16", "movielens": "17", "netflix": "17"}
PAPER_DATASETS = tuple(RESULTS_TABLE)

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


def figure(paper_dataset: str, model: str, measure: str, metric: str = "score") -> float | None:
    """The paper's `metric` for its `model` on `measure` of `paper_dataset` (None where it has none:
    RANDOM has no missed rate, the movie tables no kg_brand)."""
    table = {"score": RESULTS_TABLE, "missed_rate": MISSED_TABLE}[metric].get(paper_dataset)
    return _index().get((table, model, measure, metric)) if table else None


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

    The paper prints no counts; its Tables 12-14 give the share of questions whose gold answer is
    in each slot to two decimals, and n is the smallest count of questions that gives every share
    (tests/paper checks that each n does). Where a larger count also does, the one kept is the one
    whose prompt tokens per question (Tables 16-17) match the same measure on the sibling dataset:
    Netflix cast and genre (488, not 61 and 244: about 465 and 283 tokens a question, as
    MovieLens' 297 cast and genre questions), Netflix multimodal (427, not 61: 1,499 a question,
    MovieLens 1,505), Amazon taxonomy leaf (1,304, not 868: 357 a question, as its intermediate
    and root levels' 363 and 353)."""
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
