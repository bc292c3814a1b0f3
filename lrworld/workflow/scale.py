"""`lrworld plan`: what a config asks before any data exists: per dataset, its questions (the
config's count per measure, or the paper's), prompts (x each measure's variants), answers (x models), and the
main jobs (questions, prompts, answer, score), so the paper's scale is known before a cluster run.

Counts are what the config asks; a dataset with fewer eligible users gets fewer questions (its
questions report says how many). `paper_models`: count every model entry with a paper row
(`paper_name`) as enabled, as a run of all of the paper's Table 15 would be.
"""

from __future__ import annotations

import copy
from pathlib import Path

from lrworld.config.assembly import enabled_models, fill_defaults, validate
from lrworld.config.checks import CheckError, check_cells
from lrworld.core.schema import fail
from lrworld.config.files import load
from lrworld.core.markdown import pipe_table
from lrworld.data.paper_dataset import paper_dataset
from lrworld.paper import figures as paper
from lrworld.workflow.plan import Plan

ROOT = Path(__file__).resolve().parents[2]


def load_plan(directory: str | Path = ".", cli_files=(), paper_models: bool = False,
              overrides: dict | None = None) -> Plan:
    """The run's plan from its config files and `--config` settings, validated and filled
    (`paper_models` as above)."""
    config = load(directory, cli_files, overrides)
    validate(config)
    config = fill_defaults(config)
    overrides = copy.deepcopy(overrides or {})
    if paper_models:
        for name, cfg in config["models"].items():
            if paper.paper_name(cfg):
                cfg["enabled"] = True
                overrides.setdefault("models", {}).setdefault(name, {})["enabled"] = True
        try:  # the models now enabled can answer what they are asked
            check_cells(config, enabled_models(config))
        except CheckError as exc:
            fail(str(exc))
    plan = Plan(config, ROOT)
    plan.sources = ([str(f) for f in cli_files], overrides)
    return plan


def scale(directory: str | Path = ".", cli_files=(), paper_models: bool = False, plan: Plan | None = None) -> dict:
    plan = plan or load_plan(directory, cli_files, paper_models)
    models, variants = list(plan.models), plan.variants
    out = {"variants": variants, "models": models, "datasets": {}}
    for ds, spec in plan.datasets.items():
        per = {m: plan.n_questions(ds, m) for m in spec["measures"]}
        asked = {m: plan.measure_variants(ds, m) for m in spec["measures"]}
        known = all(n is not None for n in per.values())
        questions = sum(per.values()) if known else None
        out["datasets"][ds] = {
            "paper_table": paper_dataset(spec), "questions_per_measure": per, "questions": questions,
            "extra_variants": {m: vs[len(variants):] for m, vs in asked.items() if len(vs) > len(variants)},
            "prompts": None if questions is None else sum(per[m] * len(asked[m]) for m in per),
            "answers": None if questions is None else sum(
                per[m] for model in models for m, _ in plan.model_cells(model, ds)),
            # one score job per (model, measure) over `variants`, one per cell of an extra variant
            "jobs": {"questions": len(per), "prompts": sum(len(vs) for vs in asked.values()),
                     "answer": sum(1 for model in models if plan.model_measures(model, ds)),
                     "score": sum(1 + len(plan.model_variants(model, ds, m)) - len(variants) for model in models
                                  for m in plan.model_measures(model, ds))}}
    known = [d for d in out["datasets"].values() if d["questions"] is not None]
    out["total"] = {k: sum(d[k] for d in known) for k in ("questions", "prompts", "answers")}
    out["total"]["jobs"] = sum(sum(d["jobs"].values()) for d in out["datasets"].values())
    return out


def format_scale(res: dict) -> str:
    def n(v):
        return "all eligible" if v is None else f"{v:,}"

    head = ["dataset", "paper table", "measures", "questions", "prompts", "answers", "question + prompt + answer + score jobs"]
    rows = ([ds, d["paper_table"] or "", str(len(d["questions_per_measure"])), n(d["questions"]), n(d["prompts"]),
             n(d["answers"]), f"{d['jobs']['questions']} + {d['jobs']['prompts']} + {d['jobs']['answer']} + "
                              f"{d['jobs']['score']}"] for ds, d in res["datasets"].items())
    t = res["total"]
    extra = any(d["extra_variants"] for d in res["datasets"].values())
    lines = [f"{len(res['models'])} models ({', '.join(res['models'])}) x {len(res['variants'])} variants "
             f"({', '.join(res['variants'])})" + (" on every measure, and other variants below" if extra else ""), ""]
    lines += pipe_table(head, rows, right=[False, False] + [True] * 5)
    lines += ["", f"total: {t['questions']:,} questions, {t['prompts']:,} prompts, {t['answers']:,} answers, "
                  f"{t['jobs']:,} question, prompt, answer and score jobs"]
    for ds, d in res["datasets"].items():
        lines.append(f"{ds}: " + ", ".join(f"{m} {n(c)}" for m, c in d["questions_per_measure"].items()))
    for ds, d in res["datasets"].items():
        if d["extra_variants"]:
            # a dataset's extra_variants and those a model asks there (experiments: paper)
            lines.append(f"{ds} other variants: " + "; ".join(f"{m} +{', '.join(vs)}" for m, vs in d["extra_variants"].items()))
    return "\n".join(lines)
