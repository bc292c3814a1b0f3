"""The answer stage's requests of a LLaRA-trained row: the hybrid prompt (every title followed by
its placeholder) plus the item ids whose behavioural embeddings fill the placeholders, or the text
form ([PH] after every title, as the curriculum's text batches) for a text-only LoRA."""

from __future__ import annotations

from lrworld.core.io import sha256_text
from lrworld.tracks.llara.hybrid.entries import FORMS
from lrworld.tracks.llara.hybrid.tokens import hybrid_prompt
from lrworld.tracks.llara.prompts import load_template


def build_requests(candidate_records: list[dict], template_name: str, form: str) -> list[dict]:
    """One request per candidate record. ``history_items`` / ``candidate_items`` (hybrid form) are
    keyed in the response cache beside the prompt (lrworld/inference/cache.py)."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    template = load_template(template_name)
    digest = sha256_text(template)
    out = []
    for rec in candidate_records:
        req = {"qid": rec["qid"],
               "prompt": hybrid_prompt(template, rec["history_titles"], rec["candidate_titles"], form == "hybrid"),
               "candidates": list(rec["candidate_titles"]), "labels": list(rec["candidate_titles"]),
               "gold_title": rec["next_title"], "template": template_name, "template_sha256": digest, "form": form}
        if form == "hybrid":
            req["history_items"] = [int(i) for i in rec["history"]]
            req["candidate_items"] = [int(i) for i in rec["candidates"]]
        out.append(req)
    return out
