"""Where each file of a release lies, inside the release and in a build's results/ (one table, so
pack and the release rules cannot disagree)."""

from __future__ import annotations

MANIFEST = "release.json"
FORMAT = "lrworld-release/1"

# release path -> results path (patterns over {dataset}, {measure}, {variant})
DATA = {f"data/{name}": f"results/data/{{dataset}}/{name}"
        for name in ("interactions.parquet", "items.parquet", "users.parquet", "ingest_report.json")}
QUESTIONS = {"questions/{measure}.jsonl": "results/questions/{dataset}/{measure}.jsonl",
             "questions/{measure}.report.json": "results/questions/{dataset}/{measure}.report.json"}
PROMPTS = {"prompts/{measure}/{variant}.jsonl": "results/prompts/{dataset}/{measure}/{variant}.jsonl"}
AUDIT = {"audit/audit.json": "results/audit/{dataset}.json", "audit/audit.md": "results/audit/{dataset}.md"}


def pairs(dataset: str, measures, variants, extra_variants: dict | None = None) -> list[tuple[str, str]]:
    """(release path, results path) of every file a release of the dataset carries: each measure's
    prompts in `variants` and the dataset entry's `extra_variants` for it."""
    from lrworld.prompts.variants import measure_variants

    entry = {"extra_variants": extra_variants or {}}
    out = [(r, b.format(dataset=dataset)) for r, b in {**DATA, **AUDIT}.items()]
    for m in measures:
        out += [(r.format(measure=m), b.format(dataset=dataset, measure=m)) for r, b in QUESTIONS.items()]
        out += [(r.format(measure=m, variant=v), b.format(dataset=dataset, measure=m, variant=v))
                for v in measure_variants(variants, entry, m) for r, b in PROMPTS.items()]
    return out
