"""The unified input paradigm: one template for every LLM, read from
``lrworld/templates/srbench/`` (``role.txt`` = role instruction, ``sequential.txt`` = the prompt).

The user's history is written chronologically, one line per item: ``<index>: <title>`` plus
`` [<category>, ...]`` when the dataset has categories (``<index>`` alone when the item has no
title, e.g. Beauty without its metadata file). ``<index>`` is the integer id the extractor
maps back (`lrworld.tracks.srbench.data.item_index`). Modes: ``few_shot`` = the latest 5 items (the
seed's few-shot mode), ``full`` = the whole history (optionally capped to its latest
``max_history`` items to fit a context window; the cap is recorded in the run's metadata).
"""

from __future__ import annotations

from pathlib import Path
from string import Template
from typing import Sequence

from lrworld.models.base import PromptItem

TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "templates" / "srbench"
FEW_SHOT_LEN = 5
MODES = ("few_shot", "full")

# What an item is called in each dataset's prompt (singular, plural).
DOMAIN_WORDS = {"ml-100k": ("movie", "movies"), "beauty": ("product", "products"), "yelp": ("business", "businesses")}


def load_template(name: str) -> Template:
    return Template((TEMPLATE_DIR / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n"))


def cut_history(history: Sequence[str], mode: str, max_history: int | None = None) -> list[str]:
    if mode == "few_shot":
        return list(history[-FEW_SHOT_LEN:])
    if mode == "full":
        return list(history[-max_history:]) if max_history else list(history)
    raise ValueError(f"srbench mode must be one of {MODES}, not {mode!r}")


def render(history: Sequence[str], items: dict[str, dict], k: int, dataset: str, mode: str = "few_shot",
           max_history: int | None = None) -> str:
    """The prompt for one user. ``items`` maps item_id -> {"index", "title", "genres"}."""
    one, many = DOMAIN_WORDS.get(dataset, ("item", "items"))
    hist = cut_history(history, mode, max_history)
    has_cat = any(items[i].get("genres") for i in hist)
    # An item without a real title (Beauty without metadata: title = ASIN) shows its index only;
    # an ASIN such as B007IY97U0 would otherwise put stray digits in front of the model.
    has_title = any(items[i]["title"] != i for i in hist)
    lines = []
    for i in hist:
        meta = items[i]
        cats = list(meta.get("genres") or [])
        title = f": {meta['title']}" if meta["title"] != i else ""
        lines.append(f"{meta['index']}{title}" + (f" [{', '.join(cats)}]" if cats else ""))
    fields = (", then its title" if has_title else "") + (" and categories in brackets" if has_cat else "")
    role = load_template("role").substitute(domain=one, domain_plural=many)
    return load_template("sequential").substitute(
        role=role, domain=one, domain_plural=many, k=k, history="\n".join(lines),
        fields=fields)


def item_table(items_df) -> dict[str, dict]:
    """items frame (item_id, index, title, genres) -> the mapping `render` reads."""
    return {r.item_id: {"index": int(r.index), "title": r.title, "genres": list(r.genres) if r.genres is not None else []}
            for r in items_df[["item_id", "index", "title", "genres"]].itertuples(index=False)}


def qid(dataset: str, user_id: str, run: int, mode: str) -> str:
    """Identical prompts across the T runs differ only here (run index), see docs/srbench.md."""
    return f"srbench/{dataset}/{mode}/u{user_id}/run{run}"


def prompt_items(dataset: str, users: Sequence[str], histories: dict[str, list[str]], items: dict[str, dict],
                 k: int, run: int, mode: str = "few_shot", max_history: int | None = None,
                 labels: tuple[str, ...] = ()) -> list[PromptItem]:
    """One generation PromptItem per user for run ``run`` (labels empty: free generation)."""
    return [PromptItem(qid=qid(dataset, u, run, mode), prompt=render(histories.get(u, []), items, k, dataset, mode, max_history),
                       labels=labels) for u in users]
