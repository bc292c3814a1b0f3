"""`lrworld plan`: before a run, per (track, scope, model) answer job, the prompts it will ask,
how many the response cache already answers, the rest, their input tokens and, for API models,
what the missing ones cost at the config's `prices`.

Prompts are those the run being planned will ask (lrworld/workflow/planned_prompts.py): a prompt
file built with the plan's question count and seed counts as it is; one out of date or not yet
built counts as what the run will make of it, built in memory where its inputs exist; else it is
estimated from its template: the questions the config asks for, each the template's text plus
`history_length` history lines and one line per option. Tokens are counted with the model's own tokenizer when it is local (an hf
model from a package or a folder); otherwise, and for estimated prompts, at 4 characters a token
(the rule of thumb for English BPE vocabularies). Output tokens of an API model are bounded by
its `max_tokens` per prompt, so its cost is an upper bound.
"""

from __future__ import annotations

import os
from pathlib import Path

from lrworld.core import io
from lrworld.inference.cache import request_key
from lrworld.models.backends.hf import resolve_location
from lrworld.prompts.render import template_path
from lrworld.questions import measures as measure_registry
from lrworld.workflow import status as run_status
from lrworld.workflow.plan import Plan
from lrworld.workflow.planned_prompts import PROMPT_FILE, PlannedPrompts

CHARS_PER_TOKEN = 4
LINE_CHARS = 40  # a history line or an option: a title with its year (and genres), about 40 characters
API_BACKENDS = {"openai"}


def _estimate(chars: float) -> int:
    return int(round(chars / CHARS_PER_TOKEN))


def _counter(name: str, cfg: dict):
    """(count(text) -> tokens, how): the model's tokenizer when local, else the estimate."""
    if cfg.get("backend") == "hf":
        try:
            loc, _ = resolve_location(name, cfg)
        except (FileNotFoundError, ValueError):
            loc = None
        if loc is not None and Path(loc).exists():
            from lrworld.models import make_backend

            tok = make_backend(name, dict(cfg)).tokenizer
            return (lambda text: len(tok(text, add_special_tokens=False)["input_ids"])), "tokenizer"
    return (lambda text: _estimate(len(text))), "estimate"


def _unbuilt(plan: Plan, path: str) -> tuple[int, int]:
    """(prompts, input characters) a prompt file not yet built will hold, from its template."""
    m = PROMPT_FILE.search(path)
    if not m:
        return 0, 0
    ds = plan.datasets.get(m["ds"], {})
    # the plan's count: questions.per_measure, the paper's counts, or a ground-truth job's count
    n = (plan.gt_n_questions if m["measure"] in plan.gt_artifacts else plan.n_questions)(m["ds"], m["measure"])
    tpl = template_path(ds.get("domain", ""), m["measure"], m["variant"].split("shuffle")[0] or "zero_shot")
    text = tpl.read_text() if tpl.exists() else ""
    options = measure_registry.by_id(m["measure"]).n_candidates
    chars = len(text) + LINE_CHARS * (plan.config["questions"]["history_length"] + options)
    n = n or 0
    return n, n * chars


def price_of(config: dict, model: str) -> dict | None:
    return (config.get("prices") or {}).get(model)


def plan_costs(directory: str | Path = ".", configfiles=(), plan: Plan | None = None) -> dict:
    """`plan`: the run's plan when the caller has it (`lrworld plan` loads it once for both its parts)."""
    directory = Path(directory)
    if plan is None:
        config = run_status.load(directory, configfiles)
        run_status.validate(config)
        plan = Plan(run_status.fill_defaults(config), run_status.ROOT)
    config = plan.config
    cache_dir = Path(config["cache_dir"])
    cache_dir = cache_dir if cache_dir.is_absolute() else directory / cache_dir
    jobs, read, counters, warnings = [], {}, {}, []
    planned = PlannedPrompts(plan, directory)
    for track, scope, model in run_status._jobs(plan):
        cfg = config["models"].get(model, {})
        if model not in counters:
            counters[model] = _counter(model, cfg)
        count, how = counters[model]
        files = [f for f in plan.requests(track, scope, model) if f.endswith(".jsonl")]
        requests, est_prompts, est_tokens, unknown = [], 0, 0, 0
        for f in files:
            if f not in read:
                read[f] = planned.records(f) if PROMPT_FILE.search(f) else (
                    list(io.read_jsonl(directory / f)) if (directory / f).exists() else None)
            if read[f] is not None:
                requests.extend(read[f])
            else:
                n, chars = _unbuilt(plan, f)
                unknown += not n
                est_prompts, est_tokens = est_prompts + n, est_tokens + _estimate(chars)
        unique = list({request_key({}, r): r for r in requests}.values())
        done = directory / f"results/answers/{track}/{scope}/{model}.json"
        known = [io.read_json(done)["identity"]] if done.exists() else []
        cached, _ = run_status._answered(cache_dir / f"{model}.sqlite", unique, known)
        tokens = sum(count(str(r.get("prompt") or io.dumps_canonical(r.get("messages") or r))) for r in unique)
        prompts = len(unique) + est_prompts
        tokens += est_tokens
        missing = prompts - cached
        job = {"track": track, "scope": scope, "model": model, "prompts": prompts, "cached": cached,
               "missing": missing, "estimated_prompts": est_prompts, "input_tokens": tokens,
               "tokens_by": how if not est_prompts else ("estimate" if not unique else f"{how} + estimate"),
               "backend": cfg.get("backend"), "not_estimated_files": unknown}
        if cfg.get("backend") in API_BACKENDS:
            price = price_of(config, model)
            # the missing prompts' share of the input tokens; output bounded by max_tokens each
            missing_in = tokens * missing / prompts if prompts else 0
            out_tokens = missing * int(cfg.get("max_tokens") or 0)
            job["output_tokens_max"] = out_tokens
            job["cost_usd"] = None if price is None else round(
                missing_in / 1e6 * price["input_per_mtok"] + out_tokens / 1e6 * price["output_per_mtok"], 4)
        jobs.append(job)
    for model, cfg in plan.models.items():
        if cfg.get("backend") in API_BACKENDS:
            env = cfg.get("api_key_env", "OPENAI_API_KEY")
            if not cfg.get("base_url") and not os.environ.get(env):
                warnings.append(f"models.{model}: enabled, but environment variable {env} is not set "
                                f"(its answer jobs will fail; set it, or disable the model)")
            if price_of(config, model) is None:
                warnings.append(f"models.{model}: no entry in prices: its cost is not known")
    return {"directory": str(directory), "cache_dir": str(cache_dir), "jobs": jobs, "warnings": warnings}


def format_costs(res: dict) -> str:
    out = [f"cache {res['cache_dir']}: prompts per answer job (tokens: the model's tokenizer where local, "
           f"else {CHARS_PER_TOKEN} characters a token; ~ marks prompts estimated from templates)"]
    width = max((len(j["model"]) for j in res["jobs"]), default=0)
    last = None
    for j in res["jobs"]:
        if (j["track"], j["scope"]) != last:
            last = (j["track"], j["scope"])
            out.append(f"{j['track']}/{j['scope']}")
        mark = "~" if j["estimated_prompts"] else " "
        line = (f"  {j['model']:<{width}}  prompts {mark}{j['prompts']:>7}  cached {j['cached']:>7}  "
                f"missing {j['missing']:>7}  input tokens {mark}{j['input_tokens']:>10,} ({j['tokens_by']})")
        if j["not_estimated_files"]:
            line += f"  [{j['not_estimated_files']} request files not built yet, not counted]"
        if "cost_usd" in j:
            line += "  cost: no price" if j["cost_usd"] is None else f"  cost <= ${j['cost_usd']:,.2f}"
        out.append(line)
    if not res["jobs"]:
        out.append("  (the config plans no answer jobs)")
    totals = {}
    for j in res["jobs"]:
        t = totals.setdefault(j["model"], [0, 0])
        t[0], t[1] = t[0] + j["missing"], t[1] + j["input_tokens"]
    if totals:
        out.append("per model: " + "; ".join(f"{m} {p:,} missing prompts, {t:,} input tokens"
                                            for m, (p, t) in totals.items()))
    out += [f"warning: {w}" for w in res["warnings"]]
    return "\n".join(out)
