"""Render LLaRA prompts from template files (``lrworld/templates/llara/*.txt``).

A template is the file's text (stripped, as LLaRA's ``load_prompt`` strips each line) with the
placeholders LLaRA uses: ``[HistoryHere]`` (history titles) and ``[CansHere]`` (candidate
titles), each list joined with ``", "`` as in LLaRA's ``TrainCollater``. ``[CansNum]`` (ours) is
the number of candidates. LLaRA appends `` [HistoryEmb]`` / `` [CansEmb]`` after every title for
its hybrid prompt; a text-only model gets the titles alone (``item_suffix=""``).
"""

from __future__ import annotations

import os
from pathlib import Path

from lrworld.core.io import sha256_text

TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "templates" / "llara"
PLACEHOLDERS = ("[HistoryHere]", "[CansHere]")


def template_path(name: str) -> Path:
    """A template by name (``movielens``, ``steam``, ``lastfm``, ``movielens_repo``, ``generic``)
    or by path."""
    p = Path(name)
    if p.suffix == ".txt" and p.exists():
        return p
    p = TEMPLATE_DIR / f"{name}.txt"
    if not p.exists():
        known = sorted(q.stem for q in TEMPLATE_DIR.glob("*.txt"))
        raise FileNotFoundError(f"LLaRA template {name!r} not found; known: {known}")
    return p


def load_template(name: str | os.PathLike) -> str:
    path = template_path(str(name))
    text = path.read_text(encoding="utf-8").strip()
    for ph in PLACEHOLDERS:
        if text.count(ph) != 1:
            raise ValueError(f"{path}: template must contain {ph} exactly once")
    return text


def render(template: str, history_titles: list[str], candidate_titles: list[str], item_suffix: str = "") -> str:
    hist = ", ".join(t + item_suffix for t in history_titles)
    cans = ", ".join(t + item_suffix for t in candidate_titles)
    # Candidates last: a title containing "[CansHere]" must not be expanded twice.
    return (template.replace("[CansNum]", str(len(candidate_titles)))
            .replace("[HistoryHere]", "\x00H\x00").replace("[CansHere]", "\x00C\x00")
            .replace("\x00H\x00", hist).replace("\x00C\x00", cans))


def build_prompts(candidate_records: list[dict], template_name: str, item_suffix: str = "") -> list[dict]:
    """One prompt record per candidate record (the prompts.jsonl artifact)."""
    template = load_template(template_name)
    digest = sha256_text(template)
    out = []
    for rec in candidate_records:
        out.append({
            "qid": rec["qid"],
            "prompt": render(template, rec["history_titles"], rec["candidate_titles"], item_suffix),
            "candidates": list(rec["candidate_titles"]),
            # LLaRA's answer is a title: a backend that picks a label answers with one
            "labels": list(rec["candidate_titles"]),
            "gold_title": rec["next_title"],
            "template": template_name,
            "template_sha256": digest,
        })
    return out
