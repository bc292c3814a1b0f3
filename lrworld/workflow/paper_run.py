"""`lrworld plan` beside the paper's own run: per enabled model with a paper row, the prompts the
plan asks of it and those the paper asked (lrworld.paper.experiments), for a config that asks the
paper's question counts (`questions.per_measure: paper`)."""

from __future__ import annotations

from lrworld.paper import experiments
from lrworld.paper import figures as paper
from lrworld.workflow.plan import Plan


def paper_run(plan: Plan, scale: dict) -> dict | None:
    """{model: {paper_name, planned, paper}} (None: the config does not ask the paper's counts).
    `scale`: lrworld.workflow.scale.scale of the same plan."""
    if plan.config["questions"]["per_measure"] != paper.PAPER_COUNTS:
        return None
    per_model = experiments.prompts_per_model()

    def planned(model: str) -> int:
        return sum(plan.n_questions(ds, m) * len(plan.measure_variants(ds, m))
                   for ds in plan.datasets for m in plan.model_measures(model, ds))

    return {m: {"paper_name": name, "planned": planned(m), "paper": per_model.get(name, 0)}
            for m, name in plan.paper_names().items() if name and name != paper.RANDOM}


def format_paper_run(res: dict | None) -> str:
    if not res:
        return ""
    lines = ["the paper's own run, per model (lrworld.paper.experiments): prompts planned here / asked by the paper"]
    for m, r in res.items():
        ratio = f" ({r['planned'] / r['paper']:.1f}x)" if r["paper"] else " (the paper did not run it)"
        lines.append(f"  {m} ({r['paper_name']}): {r['planned']:,} / {r['paper']:,}{ratio}")
    return "\n".join(lines)
