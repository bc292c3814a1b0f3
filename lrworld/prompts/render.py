"""Render questions into prompts from template files.

Templates use `string.Template` placeholders (`${history}`, `${candidates}`) rather than
`str.format`, so braces in titles or plots are plain text, and a template that names an unknown
placeholder fails loudly instead of rendering a broken prompt.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pandas as pd

from lrworld.io import sha256_text

TEMPLATE_ROOT = Path(__file__).resolve().parents[1] / "templates"
MCQ_LABELS = ("A", "B", "C", "D")
HIT10_LABELS = tuple(str(i) for i in range(10))

_WS = re.compile(r"\s+")


def template_path(domain: str, measure: str, variant: str) -> Path:
    return TEMPLATE_ROOT / domain / measure / f"{variant}.txt"


def labels_for(n: int) -> tuple[str, ...]:
    return MCQ_LABELS if n == 4 else HIT10_LABELS[:n]


def clean(text) -> str:
    """One line of text: newlines inside a title or plot cannot start a new prompt line."""
    return _WS.sub(" ", str(text)).strip()


def item_text(row: dict) -> str:
    year = row.get("year")
    title = clean(row.get("title", ""))
    return f"{title} ({int(year)})" if year is not None and not pd.isna(year) else title


class ItemTexts:
    """Looks up the display text of an item id once per dataset."""

    def __init__(self, items: pd.DataFrame):
        self._text = {str(r["item_id"]): item_text(r) for r in items.to_dict("records")}

    def __call__(self, item_id: str) -> str:
        return self._text[str(item_id)]


def render(template: str, question: dict, texts: ItemTexts) -> dict:
    labels = labels_for(len(question["candidates"]))
    if "item_texts" in question:
        # Items shown by a text field only (logline, image caption): the question carries the texts,
        # so no title can leak into the prompt.
        shown = question["item_texts"]

        def show(it):
            return clean(shown[str(it)])
    else:
        show = texts
    hist_texts = [show(it) for it in question["history"]]
    history = "\n".join(f"{i + 1}. {t}" for i, t in enumerate(hist_texts))
    if question["candidate_kind"] == "value":
        cand_texts = [clean(c) for c in question["candidates"]]
    else:
        cand_texts = [show(c) for c in question["candidates"]]
    sep = ". " if labels == MCQ_LABELS else ": "
    candidates = "\n".join(f"{lab}{sep}{txt}" for lab, txt in zip(labels, cand_texts))
    # Inline forms for templates written as one sentence (LLaRA / paper Table 24: "[HistoryHere]").
    prompt = string.Template(template).substitute(
        history=history, candidates=candidates, labels=", ".join(labels),
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
    }


def render_all(questions: list[dict], template_file: str | Path, items: pd.DataFrame, variant: str) -> list[dict]:
    template = Path(template_file).read_text(encoding="utf-8")
    texts = ItemTexts(items)
    tsha = sha256_text(template)
    out = []
    for q in questions:
        rec = render(template, q, texts)
        rec.update({"variant": variant, "measure": q["measure"], "dataset": q["dataset"], "template_sha256": tsha})
        out.append(rec)
    return out
