"""docs/paper.md's prompt-length table: per measure, the paper's tokens per question (its Tables
16-17's total over its question count, lrworld/paper/question_counts.tsv) beside ours: one
specimen question (lrworld/groundtruth/specimen.py) with config/paper.yaml's settings, counted as
Tables 16-17 were (GPT-3.5-Turbo's cl100k_base with its chat framing); and the zero-shot run at the
paper's question counts, which `lrworld plan --configfile config/paper.yaml` estimates the same way."""

from __future__ import annotations

from pathlib import Path

from lrworld.config import files
from lrworld.config.assembly import fill_defaults, validate
from lrworld.data.paper_dataset import paper_dataset
from lrworld.groundtruth.specimen import specimen_prompt
from lrworld.models.input_tokens import api_counter
from lrworld.paper import figures as paper
from lrworld.prompts.render import template_path
from lrworld.questions import measures as registry

CONFIG = "config/paper.yaml"
COUNTED_BY = "gpt-3.5-turbo-0125"  # the paper's Tables 16-17: "based on GPT-3.5-Turbo APIs"


def per_question(root: Path) -> dict[str, dict[str, tuple[float, int, int]]]:
    """{paper dataset: {measure: (the paper's tokens per question, ours, the paper's questions)}}."""
    config = files.load(root, [root / CONFIG])
    validate(config)
    config = fill_defaults(config)
    count, _ = api_counter({"model": COUNTED_BY})
    counts = paper.question_counts()
    out: dict[str, dict] = {}
    for ds in config["datasets"].values():
        table = paper_dataset(ds)
        if table not in paper.TOKENS_TABLE:
            continue
        for m in ds["measures"]:
            total, n = paper.prompt_tokens_total(table, m), counts[table].get(m)
            if total is None or not n:
                continue
            prompt = specimen_prompt(ds["domain"], m, "zero_shot", template_path(ds["domain"], m, "zero_shot"),
                                     config["questions"], user_items=ds["user_items_shown"], seed=int(config["seed"]))
            out.setdefault(table, {})[m] = (total / n, count(prompt), n)
    return out


def body(root: Path) -> str:
    data = per_question(root)
    tables = [t for t in paper.TOKENS_TABLE if t in data]
    order = [m.id for m in registry.MEASURES if any(m.id in data[t] for t in tables)]
    lines = ["| tokens per question: paper's/ours | " + " | ".join(tables) + " |",
             "|---|" + "---:|" * len(tables)]
    for m in order:
        cells = [f"{data[t][m][0]:,.0f}/{data[t][m][1]:,}" if m in data[t] else "" for t in tables]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    theirs = {t: sum(p * n for p, _, n in data[t].values()) for t in tables}
    ours = {t: sum(o * n for _, o, n in data[t].values()) for t in tables}
    each = ", ".join(f"{t} {ours[t] / theirs[t]:.2f}" for t in tables)
    lines.append(f"\nZero-shot at the paper's counts: ours ~{sum(ours.values()):,.0f} tokens, its "
                 f"{sum(theirs.values()):,.0f} ({sum(ours.values()) / sum(theirs.values()):.2f}x; {each}).")
    return "\n".join(lines)
