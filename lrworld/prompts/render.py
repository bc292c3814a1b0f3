"""Render questions into prompts from template files.

Templates use `string.Template` placeholders (`${history}`, `${candidates}`) rather than
`str.format`, so braces in titles or plots are plain text, and a template that names an unknown
placeholder fails loudly instead of rendering a broken prompt.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

from lrworld.core.display import display_key
from lrworld.core.io import sha256_text

if TYPE_CHECKING:  # imported where it is used: the score and provenance jobs load this module, not pandas
    import pandas as pd

TEMPLATE_ROOT = Path(__file__).resolve().parents[1] / "templates"
MCQ_LABELS = ("A", "B", "C", "D")
HIT10_LABELS = tuple(str(i) for i in range(10))

_WS = re.compile(r"\s+")


# measure id -> the templates folder of a measure from an installed plugin (lrworld/questions/measures.py)
PLUGIN_TEMPLATES: dict[str, Path] = {}


def template_path(domain: str, measure: str, variant: str) -> Path:
    return PLUGIN_TEMPLATES.get(measure, TEMPLATE_ROOT) / domain / measure / f"{variant}.txt"


def template_id(domain: str, measure: str, variant: str) -> str:
    """The template's name relative to the package (lrworld/core/package_files.py); a plugin
    measure's template by its path."""
    if measure in PLUGIN_TEMPLATES:
        return str(template_path(domain, measure, variant))
    return f"lrworld/templates/{domain}/{measure}/{variant}.txt"


def labels_for(n: int) -> tuple[str, ...]:
    return MCQ_LABELS if n == 4 else HIT10_LABELS[:n]


def clean(text) -> str:
    """One line of text: newlines inside a title or plot cannot start a new prompt line."""
    return _WS.sub(" ", str(text)).strip()


def item_text(row: dict) -> str:
    import pandas as pd

    year = row.get("year")
    title = clean(row.get("title", ""))
    return f"{title} ({int(year)})" if year is not None and not pd.isna(year) else title


def _categories(row: dict) -> list[str]:
    genres = row.get("genres")
    if genres is not None and len(genres):
        return [clean(g) for g in genres]
    leaf = row.get("category_leaf")
    return [clean(leaf)] if isinstance(leaf, str) and leaf.strip() else []


class ItemTexts:
    """Looks up the display text of an item id once per dataset: `title (year)`, and with
    `detailed` the genres or product category too (the paper's Table 10 shows items that way)."""

    def __init__(self, items: pd.DataFrame, exclude_values: dict[str, list[str]] | None = None,
                 user_items: int | None = None):
        """`exclude_values`: `questions.exclude_values` of the config; a value excluded for the
        field the categories come from (genres, category_leaf) is never shown ("IMAX"
        reached HitRate@1 prompts inside "Man of Tai Chi (2013) [Action, IMAX]").
        `user_items`: the dataset's `user_items_shown`, the latest items a candidate user is shown by."""
        self.user_items = int(user_items or USER_ITEMS_SHOWN)
        rows = items.to_dict("records")
        self._text = {str(r["item_id"]): item_text(r) for r in rows}
        excluded = {display_key(v) for f in ("genres", "category_leaf") for v in (exclude_values or {}).get(f, [])}
        self._cats = {str(r["item_id"]): [c for c in _categories(r) if display_key(c) not in excluded] for r in rows}

    def __call__(self, item_id: str) -> str:
        return self._text[str(item_id)]

    def detailed(self, item_id: str) -> str:
        cats = self._cats[str(item_id)]
        return f"{self(item_id)} [{', '.join(cats)}]" if cats else self(item_id)


# A user candidate is shown by the titles of their most recent items (oldest first): this many
# unless the dataset's `user_items_shown` says otherwise.
USER_ITEMS_SHOWN = 5


def item_shower(question: dict, texts: ItemTexts) -> Callable[[str], str]:
    """item id -> the text a prompt of `question` shows for the item (its `qtype`, its `item_texts`)."""
    if "item_texts" in question:
        # Items shown by a text field only (logline, image caption): the question carries the texts,
        # so no title can leak into the prompt.
        shown = question["item_texts"]

        def show(it):
            return clean(shown[str(it)])
        return show
    return texts.detailed if question.get("qtype") == "hit10" else texts


class Shown(NamedTuple):
    """What a prompt of a question shows: the history's texts (or the antecedents'), the target
    item's text ("" where none) and each option's text, in the question's option order."""
    history: list[str]
    target: str
    options: list[str]


def shown(question: dict, texts: ItemTexts) -> Shown:
    """The texts a prompt of `question` shows: what `render` lays out, and what a knowledge-free
    answerer may read (lrworld/questions/option_features.py)."""
    show = item_shower(question, texts)
    # Ground-truth questions (rules/groundtruth.smk) carry their context: antecedent items, a
    # target item or user, and the recent items of each candidate user.
    ctx = question.get("context") or {}
    hist_ids = question.get("history") or ctx.get("history") or ctx.get("antecedents") or []
    target = show(ctx["target_item"]) if ctx.get("target_item") else ""
    kind = question["candidate_kind"]
    if kind == "value":
        cand_texts = [clean(c) for c in question["candidates"]]
    elif kind == "user":
        recent = ctx["candidate_histories"]
        cand_texts = ["a user who recently chose " + "; ".join(texts(i) for i in recent[c][-texts.user_items:])
                      for c in question["candidates"]]
    else:
        cand_texts = [show(c) for c in question["candidates"]]
    return Shown([show(it) for it in hist_ids], target, cand_texts)


def render(template: str, question: dict, texts: ItemTexts) -> dict:
    labels = labels_for(len(question["candidates"]))
    hist_texts, target, cand_texts = shown(question, texts)
    history = "\n".join(f"{i + 1}. {t}" for i, t in enumerate(hist_texts))
    sep = ". " if labels == MCQ_LABELS else ": "
    candidates = "\n".join(f"{lab}{sep}{txt}" for lab, txt in zip(labels, cand_texts))
    # Inline forms for templates written as one sentence (LLaRA / paper Table 24: "[HistoryHere]").
    prompt = string.Template(template).substitute(
        history=history, candidates=candidates, labels=", ".join(labels), target=target,
        history_inline=", ".join(hist_texts), candidates_inline=", ".join(cand_texts))
    return {
        "qid": question["qid"],
        "prompt": prompt,
        "prompt_sha256": sha256_text(prompt),
        "labels": list(labels),
        "candidates": cand_texts,
        "answer_index": question["answer_index"],
        # Templates that list candidates inline without letters (paper Table 24): an answer can only
        # be matched by candidate text, and "A Perfect Circle" must not read as option A.
        "labels_shown": "${candidates}" in template or "${labels}" in template,
        "option_signals": option_signals(question, cand_texts, hist_texts),
    }


_WORD = re.compile(r"[^\W\d_]{3,}")


@lru_cache(maxsize=1 << 16)
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def history_overlap(texts: Sequence[str], hist_texts: Sequence[str]) -> list[int]:
    """Per text, the words of three letters or more it shares with the history's texts: what the
    `history_overlap` shortcut reads, and a stratum matched distractors are drawn on
    (lrworld/groundtruth/questions.py)."""
    history = _words(" ".join(hist_texts))
    return [len(_words(t) & history) for t in texts]


def option_signals(question: dict, cand_texts: list[str], hist_texts: list[str]) -> dict[str, list]:
    """What a shortcut answerer reads per option, in the prompt's option order (never shown to a
    model): the question's `signals` (lrworld/questions/signals.py) and `history_overlap`, the
    words of three letters or more the option's text shares with the history's texts."""
    out = {name: [by_option.get(str(c)) for c in question["candidates"]]
           for name, by_option in (question.get("signals") or {}).items()}
    out["history_overlap"] = history_overlap(cand_texts, hist_texts)
    return out


def render_all(questions: list[dict], template_file: str | Path, items: pd.DataFrame, variant: str,
               exclude_values: dict[str, list[str]] | None = None, user_items: int | None = None) -> list[dict]:
    template = Path(template_file).read_text(encoding="utf-8")
    texts = ItemTexts(items, exclude_values, user_items)
    tsha = sha256_text(template)
    out = []
    for q in questions:
        rec = render(template, q, texts)
        rec.update({"variant": variant, "measure": q["measure"], "dataset": q["dataset"], "template_sha256": tsha})
        out.append(rec)
    return out


def item_keys(items) -> dict[str, str]:
    """item id -> display key of the text a prompt shows for it (`title (year)`). Two items with
    one key (ML-100K lists 18 films twice) are never two options of one question."""
    rows = items[["item_id", "title", "year"]].to_dict("records")
    return {str(r["item_id"]): display_key(item_text(r)) for r in rows}
