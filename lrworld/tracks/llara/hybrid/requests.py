"""The answer stage's requests of a LLaRA-trained or released row: the hybrid prompt (every title
followed by its placeholder) plus the item ids whose behavioural embeddings fill the placeholders,
or the text form ([PH] after every title, as the curriculum's text batches) for a text-only LoRA.
The ``released`` form is the hybrid prompt with one of the prompt file's instructions drawn per
question (LLaRA's test draws one per batch), for a released checkpoint trained on all of them."""

from __future__ import annotations

from lrworld.core.io import sha256_text
from lrworld.tracks.llara.hybrid.entries import FORMS, RELEASED_FORM
from lrworld.tracks.llara.hybrid.tokens import hybrid_prompt
from lrworld.tracks.llara.prompts import load_instructions, pick_instruction


def build_requests(candidate_records: list[dict], template_name: str, form: str, seed: int = 0,
                   dataset: str = "") -> list[dict]:
    """One request per candidate record. ``history_items`` / ``candidate_items`` (hybrid forms) are
    keyed in the response cache beside the prompt (lrworld/inference/cache.py). ``seed`` and
    ``dataset`` name the instruction draw of a several-line template (``released`` form)."""
    if form not in (*FORMS, RELEASED_FORM):
        raise ValueError(f"form must be one of {(*FORMS, RELEASED_FORM)}, got {form!r}")
    instructions = load_instructions(template_name)
    if len(instructions) > 1 and form != RELEASED_FORM:
        raise ValueError(f"template {template_name!r}: {len(instructions)} instructions; the {form} form takes one")
    digest = sha256_text("\n".join(instructions))
    hybrid = form != "text"
    out = []
    for rec in candidate_records:
        k = pick_instruction(instructions, seed, dataset, rec["qid"])
        req = {"qid": rec["qid"],
               "prompt": hybrid_prompt(instructions[k], rec["history_titles"], rec["candidate_titles"], hybrid),
               "candidates": list(rec["candidate_titles"]), "labels": list(rec["candidate_titles"]),
               "gold_title": rec["next_title"], "template": template_name, "template_sha256": digest, "form": form}
        if len(instructions) > 1:
            req["instruction_line"] = k + 1
        if hybrid:
            req["history_items"] = [int(i) for i in rec["history"]]
            req["candidate_items"] = [int(i) for i in rec["candidates"]]
        out.append(req)
    return out
