"""`lrworld plan` beside the paper's own run: per enabled model with a paper row, the prompts the
plan asks of it and those the paper asked (lrworld.paper.experiments), for a config that asks the
paper's question counts (`questions.per_measure: paper`)."""

from __future__ import annotations

from lrworld.config.experiments import kshot_series
from lrworld.paper import experiments
from lrworld.paper import figures as paper
from lrworld.prompts.variants import kind
from lrworld.workflow.plan import Plan


def paper_run(plan: Plan, scale: dict) -> dict | None:
    """{model: {paper_name, planned, paper, experiments: {variant kind: {planned, paper}}}} (None:
    the config does not ask the paper's counts). The paper's k-shot series is counted at the
    config's k (analysis.kshot.series).
    `scale`: lrworld.workflow.scale.scale of the same plan."""
    if plan.config["questions"]["per_measure"] != paper.PAPER_COUNTS:
        return None
    per_model = experiments.prompts_per_experiment(kshot_series(plan.config))

    def planned(model: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for ds in plan.datasets:
            for m, v in plan.model_cells(model, ds):
                out[kind(v)] = out.get(kind(v), 0) + plan.n_questions(ds, m)
        return out

    res = {}
    for m, name in plan.paper_names().items():
        if name and name != paper.RANDOM:
            mine, theirs = planned(m), per_model.get(name, {})
            res[m] = {"paper_name": name, "planned": sum(mine.values()), "paper": sum(theirs.values()),
                      "experiments": {e: {"planned": mine.get(e, 0), "paper": theirs.get(e, 0)}
                                      for e in sorted({*mine, *theirs}, key=lambda e: (e != "zero_shot", e))}}
    return res


def format_paper_run(res: dict | None) -> str:
    if not res:
        return ""
    lines = ["the paper's own run, per model (lrworld.paper.experiments): prompts planned here / asked by the paper"]
    for m, r in res.items():
        ratio = f" ({r['planned'] / r['paper']:.1f}x)" if r["paper"] else " (the paper did not run it)"
        per = ", ".join(f"{e} {n['planned']:,} / {n['paper']:,}" for e, n in r["experiments"].items())
        lines.append(f"  {m} ({r['paper_name']}): {r['planned']:,} / {r['paper']:,}{ratio}: {per}")
    return "\n".join(lines)
