"""`lrworld plan`: before a run, per (track, scope, model) answer job, the prompts it will ask,
how many the response cache already answers, the rest, their input tokens and, for API models,
what the missing ones cost at the config's `prices`.

Prompts are those the run being planned will ask (lrworld/workflow/planned_prompts.py): a prompt
file built with the plan's question count and seed counts as it is; one out of date or not yet
built counts as what the run will make of it, built in memory where its inputs exist; else it is
estimated from its template: the questions the config asks for, each the template's text plus
`history_length` history lines and one line per option. Input tokens are lrworld/models/input_tokens.py's count: a local model's
tokenizer through its chat template; an API model's exact encoding where one is bundled offline,
else its messages' UTF-8 bytes (a bound); a caption request's image at its most tokens. Estimated
prompts are counted at 4 characters a token. Output tokens of an API model are bounded by its
`max_tokens` per prompt, and the missing prompts' input by the largest prompts', so its cost is an
upper bound ("cost <=") whenever no prompt is estimated ("cost ~").
"""

from __future__ import annotations

import os
from pathlib import Path

from lrworld.core import io
from lrworld.inference.cache import request_key
from lrworld.models import input_tokens
from lrworld.models.registry import capabilities
from lrworld.models.backends.openai import SCHEMA as OPENAI_SCHEMA, _loopback, public_url
from lrworld.prompts.render import template_path
from lrworld.questions import measures as measure_registry
from lrworld.workflow import scale, status as run_status
from lrworld.workflow.plan import CAPTIONER, Plan
from lrworld.workflow.planned_prompts import PROMPT_FILE, PlannedPrompts

CHARS_PER_TOKEN = 4
LINE_CHARS = 40  # a history line or an option: a title with its year (and genres), about 40 characters


def _estimate(chars: float) -> int:
    return int(round(chars / CHARS_PER_TOKEN))


def _counter(name: str, cfg: dict):
    """(count(prompt) -> input tokens, how): a priced API model's count (lrworld/models/input_tokens.py),
    a local model's own tokenizer through its chat template when its files are here, else the
    4-characters estimate (a model that reads no tokens, random; a tokenizer not on this machine)."""
    can = capabilities(cfg)
    if can.priced:
        return input_tokens.api_counter(cfg)
    count = can.prompt_tokens(name, cfg) if can.prompt_tokens is not None else None
    if count is not None:
        return count, "tokenizer with chat template"
    return (lambda text: _estimate(len(text))), "estimate"


def _key_missing(cfg: dict) -> str | None:
    """Why an API model's answer jobs would have no key, or None: a loopback or managed server
    needs none; OpenAI or a remote server reads it from api_key_env."""
    if cfg.get("server") or (cfg.get("base_url") and _loopback(cfg["base_url"])):
        return None
    env = cfg.get("api_key_env", "OPENAI_API_KEY")
    if os.environ.get(env):
        return None
    where = f"the remote server {public_url(cfg['base_url'])}" if cfg.get("base_url") else "the OpenAI API"
    return f"environment variable {env} is not set: {where} will refuse its requests"


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
        plan = scale.load_plan(directory, configfiles)
    config = plan.config
    cache_dir = Path(config["cache_dir"])
    cache_dir = cache_dir if cache_dir.is_absolute() else directory / cache_dir
    jobs, read, counters = [], {}, {}
    planned = PlannedPrompts(plan, directory)
    for track, scope, model in plan.answer_jobs():
        cfg = config["captioner"] if model == CAPTIONER else config["models"].get(model, {})
        if model not in counters:
            counters[model] = _counter(model, cfg)
        files = [f for f in plan.requests(track, scope, model) if f.endswith(".jsonl")]
        requests, *estimated = _job_requests(plan, planned, read, files)
        jobs.append(_job_costs(config, directory, cache_dir, (track, scope, model), cfg, counters[model],
                               requests, estimated))
    return {"directory": str(directory), "cache_dir": str(cache_dir), "jobs": jobs,
            "warnings": _api_warnings(config, plan, jobs) + planned.warnings}


def _job_requests(plan: Plan, planned: PlannedPrompts, read: dict,
                  files: list[str]) -> tuple[list[dict], int, int, int]:
    """(requests, estimated prompts, their estimated tokens, files not estimated) of one answer
    job's request files; `read` keeps each file's records for the jobs that share it."""
    requests, est_prompts, est_tokens, unknown = [], 0, 0, 0
    for f in files:
        if f not in read:
            read[f] = planned.records(f)
        if read[f] is not None:
            requests.extend(read[f])
        else:
            n, chars = _unbuilt(plan, f)
            unknown += not n
            est_prompts, est_tokens = est_prompts + n, est_tokens + _estimate(chars)
    return requests, est_prompts, est_tokens, unknown


def _cached(directory: Path, cache_dir: Path, track: str, scope: str, model: str, unique: list[dict]) -> int:
    """How many of the job's prompts the cache answers under one identity: the one its last
    answers recorded, or any the cache holds."""
    done = directory / f"results/answers/{track}/{scope}/{model}.json"
    known = [io.read_json(done)["identity"]] if done.exists() else []
    cached, _ = run_status._answered(cache_dir, model, unique, known)
    return cached


def _prompt_tokens(cfg: dict, count, unique: list[dict]) -> list[int]:
    """Each prompt's input tokens; an API model's images at their most tokens each."""
    images = input_tokens.image_tokens_max(cfg.get("model")) if capabilities(cfg).priced else 0
    return [count(str(r.get("prompt") or io.dumps_canonical(r.get("messages") or r)))
            + images * len(r.get("image_paths") or ()) for r in unique]


def _job_costs(config: dict, directory: Path, cache_dir: Path, job_id: tuple[str, str, str], cfg: dict, counter,
               requests: list[dict], estimated: list[int]) -> dict:
    """One answer job's line: prompts, cached, missing, input tokens and, for an API model, its cost."""
    track, scope, model = job_id
    count, how = counter
    est_prompts, est_tokens, unknown = estimated
    unique = list({request_key({}, r): r for r in requests}.values())
    cached = _cached(directory, cache_dir, track, scope, model, unique)
    each = _prompt_tokens(cfg, count, unique)
    prompts = len(unique) + est_prompts
    tokens = sum(each) + est_tokens
    missing = prompts - cached
    # whichever of the known prompts the cache lacks, they hold at most the largest ones' tokens
    missing_in = sum(sorted(each, reverse=True)[:missing - est_prompts]) + est_tokens
    job = {"track": track, "scope": scope, "model": model, "prompts": prompts, "cached": cached,
           "missing": missing, "estimated_prompts": est_prompts, "input_tokens": tokens,
           "tokens_by": how if not est_prompts else ("estimate" if not unique else f"{how} + estimate"),
           "backend": cfg.get("backend"), "not_estimated_files": unknown}
    if capabilities(cfg).priced:
        job.update(_api_cost(config, model, cfg, missing, missing_in, est_prompts))
    return job


def _api_cost(config: dict, model: str, cfg: dict, missing: int, missing_in: int, est_prompts: int) -> dict:
    price = price_of(config, model)
    # output bounded by max_tokens each; a bound only when no prompt is estimated
    out_tokens = missing * int(cfg.get("max_tokens") or OPENAI_SCHEMA["max_tokens"]["default"])
    return {"cost_is_bound": not est_prompts, "output_tokens_max": out_tokens,
            "cost_usd": None if price is None else round(
                missing_in / 1e6 * price["input_per_mtok"] + out_tokens / 1e6 * price["output_per_mtok"], 4)}


def _api_warnings(config: dict, plan: Plan, jobs: list[dict]) -> list[str]:
    """Per API model the run asks (the captioner only when it has jobs): a missing key, a missing price."""
    warnings = []
    api = {m: c for m, c in plan.models.items() if capabilities(c).priced}
    if any(j["model"] == CAPTIONER for j in jobs) and capabilities(config["captioner"]).priced:
        api[CAPTIONER] = config["captioner"]
    for model, cfg in api.items():
        where = "captioner" if model == CAPTIONER else f"models.{model}"
        if (why := _key_missing(cfg)) is not None:
            warnings.append(f"{where}: enabled, but {why} (its answer jobs will fail; set it, or disable it)")
        if price_of(config, model) is None:
            warnings.append(f"{where}: no entry in prices{'.captioner' if model == CAPTIONER else ''}: "
                            f"its cost is not known")
    return warnings


def format_costs(res: dict) -> str:
    out = [f"cache {res['cache_dir']}: prompts per answer job (input tokens: how each model's are counted in "
           f"brackets; ~ marks prompts estimated from templates at {CHARS_PER_TOKEN} characters a token)"]
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
            line += "  cost: no price" if j["cost_usd"] is None else \
                f"  cost {'<=' if j['cost_is_bound'] else '~'} ${j['cost_usd']:,.2f}"
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
