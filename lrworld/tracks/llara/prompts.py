"""Render LLaRA prompts from template files (``lrworld/templates/llara/*.txt``).

A template file holds one instruction per line, read as LLaRA's ``load_prompt`` reads its prompt
files (``splitlines``, each line stripped), with LLaRA's placeholders ``[HistoryHere]`` (history
titles) and ``[CansHere]`` (candidate titles), each list joined with ``", "`` as in LLaRA's
``TrainCollater``. ``[CansNum]`` (ours) is the number of candidates. LLaRA appends
`` [HistoryEmb]`` / `` [CansEmb]`` after every title for its hybrid prompt; a text-only model gets
the titles alone (``item_suffix=""``).

The per-dataset templates (``movielens``, ``steam``, ``lastfm``) are the first line of LLaRA's
prompt file; ``released/{movie,game,artist}`` are LLaRA's whole files, byte for byte, from which a
released checkpoint's requests draw one instruction per question (:func:`pick_instruction`), as
LLaRA's test draws one per batch. :data:`LLARA_SOURCES` names the lines each claims to be
(``tests/tracks/llara/test_template_sources.py`` compares them with a copy of LLaRA's files).
"""

from __future__ import annotations

import os
from pathlib import Path

from lrworld.core.io import sha256_text
from lrworld.core.seeding import rng_for

TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "templates" / "llara"
PLACEHOLDERS = ("[HistoryHere]", "[CansHere]")

# template name -> (LLaRA's file at ljy0ustc/LLaRA 9733f73, the 1-based lines it is); templates not
# named here (``generic``) are lrworld's own wording
LLARA_SOURCES: dict[str, tuple[str, tuple[int, ...]]] = {
    "movielens": ("prompt/movie.txt", (1,)),
    "steam": ("prompt/game.txt", (1,)),
    "lastfm": ("prompt/artist.txt", (1,)),
    "released/movie": ("prompt/movie.txt", (1, 2, 3)),
    "released/game": ("prompt/game.txt", (1, 2, 3)),
    "released/artist": ("prompt/artist.txt", (1, 2, 3)),
}
# a released LLaRA set's kind -> the prompt file its checkpoint was trained and tested with
# (train_<kind>.sh / test_<kind>.sh: --prompt_path)
RELEASED_TEMPLATES = {"movielens": "released/movie", "steam": "released/game", "lastfm": "released/artist"}


def template_path(name: str) -> Path:
    """A template by name (``movielens``, ``steam``, ``lastfm``, ``generic``, ``released/movie`` ...)
    or by path."""
    p = Path(name)
    if p.suffix == ".txt" and p.exists():
        return p
    p = TEMPLATE_DIR / f"{name}.txt"
    if not p.exists():
        known = sorted(q.stem for q in TEMPLATE_DIR.glob("*.txt"))
        raise FileNotFoundError(f"LLaRA template {name!r} not found; known: {known}")
    return p


def load_instructions(name: str | os.PathLike) -> list[str]:
    """Every instruction of a template file: its lines, each stripped (LLaRA's ``load_prompt``)."""
    path = template_path(str(name))
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    for k, text in enumerate(lines, 1):
        for ph in PLACEHOLDERS:
            if text.count(ph) != 1:
                raise ValueError(f"{path}:{k}: an instruction must contain {ph} exactly once")
    if not lines:
        raise ValueError(f"{path}: no instruction")
    return lines


def load_template(name: str | os.PathLike) -> str:
    """A template of one instruction (the text rows and lrworld's trainings)."""
    lines = load_instructions(name)
    if len(lines) != 1:
        raise ValueError(f"{template_path(str(name))}: holds {len(lines)} instructions; this use takes one")
    return lines[0]


def pick_instruction(instructions: list[str], seed: int, dataset: str, qid: str) -> int:
    """The 0-based instruction a question is asked with: LLaRA's ``random.choice`` over the prompt
    file, drawn per question from ``rng_for(seed, dataset, "llara_instruction", qid)``."""
    if len(instructions) == 1:
        return 0
    return int(rng_for(seed, dataset, "llara_instruction", qid).integers(len(instructions)))


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
