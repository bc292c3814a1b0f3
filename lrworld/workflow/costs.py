"""`lrworld plan`: before a run, per (track, scope, model) answer job, the prompts it will ask,
how many the response cache already answers, the rest, their input tokens and, for API models,
what the missing ones cost at the config's `prices`.

Prompts are those the run being planned will ask (lrworld/workflow/planned_prompts.py): a prompt
file built with the plan's question count and seed counts as it is; one out of date or not yet
built counts as what the run will make of it, built in memory where its inputs exist; else it is
estimated: the questions the config asks for, each as long as a specimen question of the measure
rendered with its template and variant (lrworld/groundtruth/specimen.py). A caption request file
not yet built holds at most one request per item of the dataset's items table (where it is built).
Input tokens are lrworld/models/input_tokens.py's count: a local model's tokenizer through its chat
template; an API model's exact encoding (cl100k_base, o200k_base) or its messages' UTF-8 bytes (a
bound); a caption request's image at its most tokens; a model without a tokenizer here, by
GPT-3.5-Turbo's cl100k_base (an estimate). Output tokens of an API model are bounded by its
`max_tokens` per prompt, and the missing prompts' input by the largest prompts', so its cost is an
upper bound ("cost <=") whenever no prompt is estimated and every request file is counted ("cost
~"). A local server's model (a loopback base_url, or a server lrworld starts) costs nothing.

The printed figures say what they are: "~" an estimate, "<=" an upper bound, no mark an exact count.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lrworld.captions import requests
from lrworld.core import io
from lrworld.core.package_files import packaged
from lrworld.groundtruth import specimen
from lrworld.inference.cache import request_key
from lrworld.models import input_tokens
from lrworld.models.registry import capabilities
from lrworld.models.backends.openai import SCHEMA as OPENAI_SCHEMA, _loopback, public_url
from lrworld.workflow import scale, status as run_status
from lrworld.workflow.plan import CAPTIONER, Plan
from lrworld.workflow.planned_prompts import PROMPT_FILE, PlannedPrompts

CAPTION_REQUESTS = re.compile(r"results/captions/(?P<ds>[^/]+)/requests\.jsonl$")

STAND_IN = "gpt-3.5-turbo"  # counts for a model without a tokenizer here: the paper's Tables 16-17's
ESTIMATE = "estimate: cl100k_base"
BOUND = "(bound)"  # the end of `how` for a count that is an upper bound (input_tokens.api_counter)


def _counter(name: str, cfg: dict):
    """(count(prompt) -> input tokens, how): a priced API model's count (lrworld/models/input_tokens.py),
    a local model's own tokenizer through its chat template when its files are here, else
    GPT-3.5-Turbo's count as an estimate (a model that reads no tokens, random; a tokenizer not on
    this machine)."""
    can = capabilities(cfg)
    if can.priced:
        return input_tokens.api_counter(cfg)
    count = can.prompt_tokens(name, cfg) if can.prompt_tokens is not None else None
    if count is not None:
        return count, "tokenizer with chat template"
    return input_tokens.api_counter({"model": STAND_IN})[0], ESTIMATE


def local_server(cfg: dict) -> bool:
    """An API model served on this machine (a loopback base_url, or a server lrworld starts)."""
    return bool(cfg.get("server") or (cfg.get("base_url") and _loopback(cfg["base_url"])))


def _key_missing(cfg: dict) -> str | None:
    """Why an API model's answer jobs would have no key, or None: a loopback or managed server
    needs none; OpenAI or a remote server reads it from api_key_env."""
    if local_server(cfg):
        return None
    env = cfg.get("api_key_env", "OPENAI_API_KEY")
    if os.environ.get(env):
        return None
    where = f"the remote server {public_url(cfg['base_url'])}" if cfg.get("base_url") else "the OpenAI API"
    return f"environment variable {env} is not set: {where} will refuse its requests"


@dataclass
class Unbuilt:
    """What the plan knows of the request files it cannot read or build: prompt files estimated
    by a specimen prompt each (`estimated`: [(prompts, specimen text, its images)]), caption request
    files bounded by their items (`bounded`: [(requests at most, instruction text, 1 image)]), and
    the files it cannot count (`unknown`)."""
    estimated: list = field(default_factory=list)
    bounded: list = field(default_factory=list)
    unknown: int = 0


class Unbuilts:
    """The plan's view of its unbuilt request files, each worked out once for every job."""

    def __init__(self, plan: Plan, directory: Path):
        self.plan, self.dir = plan, directory
        self._items: dict[str, object] = {}
        self._seen: dict[str, tuple] = {}

    def add(self, path: str, into: Unbuilt) -> None:
        if path not in self._seen:
            self._seen[path] = self._work_out(path)
        kind, entry = self._seen[path]
        if kind == "unknown":
            into.unknown += 1
        else:
            getattr(into, kind).append(entry)

    def _work_out(self, path: str) -> tuple:
        m, plan = PROMPT_FILE.search(path), self.plan
        if m:
            # the plan's count: questions.per_measure, the paper's counts, or a ground-truth job's count
            n = (plan.gt_n_questions if m["measure"] in plan.gt_artifacts else plan.n_questions)(m["ds"], m["measure"])
            return ("estimated", (n, *self._specimen(m["ds"], m["measure"], m["variant"]))) if n else ("unknown", None)
        caption = CAPTION_REQUESTS.search(path)
        items = self._table(caption["ds"]) if caption else None
        if items is None:
            return "unknown", None
        return "bounded", (len(items), requests.instruction(packaged(plan.caption_instruction())), 1)

    def _table(self, ds: str):
        """The dataset's built items table, or None."""
        if ds not in self._items:
            import pandas as pd

            f = self.dir / f"results/data/{ds}/items.parquet"
            self._items[ds] = pd.read_parquet(f) if f.exists() else None
        return self._items[ds]

    def _specimen(self, ds: str, measure: str, variant: str) -> tuple[str, int]:
        plan, cfg = self.plan, self.plan.config
        dcfg = plan.datasets[ds]
        items = self._table(ds)
        rec = specimen.specimen_record(
            dcfg["domain"], measure, variant, packaged(plan.template(ds, measure, variant)), cfg["questions"],
            user_items=dcfg["user_items_shown"], seed=int(cfg["seed"]), kshot_k=int(cfg["analysis"]["kshot"]["k"]),
            items=None if items is None else specimen.dataset_items(items, int(cfg["seed"]), ds))
        return rec["prompt"], len(rec.get("image_paths") or ())


def price_of(config: dict, model: str, cfg: dict | None = None) -> dict | None:
    """The config's `prices` entry of a model; a local server's model, without one, costs nothing."""
    price = (config.get("prices") or {}).get(model)
    if price is None and cfg is not None and capabilities(cfg).priced and local_server(cfg):
        return {"input_per_mtok": 0.0, "output_per_mtok": 0.0}
    return price


def plan_costs(directory: str | Path = ".", configfiles=(), plan: Plan | None = None) -> dict:
    """`plan`: the run's plan when the caller has it (`lrworld plan` loads it once for both its parts)."""
    directory = Path(directory)
    if plan is None:
        plan = scale.load_plan(directory, configfiles)
    config = plan.config
    cache_dir = Path(config["cache_dir"])
    cache_dir = cache_dir if cache_dir.is_absolute() else directory / cache_dir
    jobs, read, counters = [], {}, {}
    planned, unbuilts = PlannedPrompts(plan, directory), Unbuilts(plan, directory)
    for track, scope, model in plan.answer_jobs():
        cfg = config["captioner"] if model == CAPTIONER else config["models"].get(model, {})
        if model not in counters:
            counters[model] = _counter(model, cfg)
        files = [f for f in plan.requests(track, scope, model) if f.endswith(".jsonl")]
        reqs, unbuilt = _job_requests(planned, unbuilts, read, files)
        jobs.append(_job_costs(config, directory, cache_dir, (track, scope, model), cfg, counters[model],
                               reqs, unbuilt))
    return {"directory": str(directory), "cache_dir": str(cache_dir), "jobs": jobs,
            "warnings": _api_warnings(config, plan, jobs) + planned.warnings}


def _job_requests(planned: PlannedPrompts, unbuilts: Unbuilts, read: dict,
                  files: list[str]) -> tuple[list[dict], Unbuilt]:
    """(requests, what is known of the unbuilt files) of one answer job's request files; `read`
    keeps each file's records for the jobs that share it."""
    reqs, unbuilt = [], Unbuilt()
    for f in files:
        if f not in read:
            read[f] = planned.records(f)
        if read[f] is not None:
            reqs.extend(read[f])
        else:
            unbuilts.add(f, unbuilt)
    return reqs, unbuilt


def _cached(directory: Path, cache_dir: Path, track: str, scope: str, model: str, unique: list[dict]) -> int:
    """How many of the job's prompts the cache answers under one identity: the one its last
    answers recorded, or any the cache holds."""
    done = directory / f"results/answers/{track}/{scope}/{model}.json"
    known = [io.read_json(done)["identity"]] if done.exists() else []
    cached, _ = run_status._answered(cache_dir, model, unique, known)
    return cached


def _images(cfg: dict) -> int:
    """The most input tokens one image of a request costs the model (API models; 0 for the others)."""
    return input_tokens.image_tokens_max(cfg.get("model")) if capabilities(cfg).priced else 0


def _prompt_tokens(cfg: dict, count, unique: list[dict]) -> list[int]:
    """Each prompt's input tokens; an API model's images at their most tokens each."""
    image = _images(cfg)
    return [count(str(r.get("prompt") or io.dumps_canonical(r.get("messages") or r)))
            + image * len(r.get("image_paths") or ()) for r in unique]


def _unbuilt_tokens(cfg: dict, count, unbuilt: Unbuilt) -> tuple[int, int, int, int]:
    """(estimated prompts, their tokens, bounded requests, their most tokens): each its text and
    its images at their most tokens (a caption request: its instruction and one image)."""
    image = _images(cfg)

    def totals(entries: list) -> tuple[int, int]:
        return sum(n for n, _, _ in entries), sum(n * (count(text) + k * image) for n, text, k in entries)

    return (*totals(unbuilt.estimated), *totals(unbuilt.bounded))


def _job_costs(config: dict, directory: Path, cache_dir: Path, job_id: tuple[str, str, str], cfg: dict, counter,
               reqs: list[dict], unbuilt: Unbuilt) -> dict:
    """One answer job's line: prompts, cached, missing, input tokens and, for an API model, its cost."""
    track, scope, model = job_id
    count, how = counter
    est_prompts, est_tokens, bound_prompts, bound_tokens = _unbuilt_tokens(cfg, count, unbuilt)
    unique = list({request_key({}, r): r for r in reqs}.values())
    cached = _cached(directory, cache_dir, track, scope, model, unique)
    each = _prompt_tokens(cfg, count, unique)
    prompts = len(unique) + est_prompts + bound_prompts
    missing = prompts - cached
    # whichever of the known prompts the cache lacks, they hold at most the largest ones' tokens
    missing_in = sum(sorted(each, reverse=True)[:missing - est_prompts - bound_prompts]) + est_tokens + bound_tokens
    # a bound, not a count: bounded requests, a bound per prompt (bytes), images at their most tokens
    images = bool(_images(cfg)) and (bool(bound_prompts) or any(r.get("image_paths") for r in unique))
    parts = ([how] * bool(unique or bound_prompts) + ["images at their most tokens"] * images
             + ["specimen estimate"] * bool(est_prompts))
    job = {"track": track, "scope": scope, "model": model, "prompts": prompts, "cached": cached,
           "missing": missing, "estimated_prompts": est_prompts, "bounded_prompts": bound_prompts,
           "input_tokens": sum(each) + est_tokens + bound_tokens, "tokens_by": " + ".join(parts) or how,
           "tokens_estimated": bool(est_prompts) or how == ESTIMATE,
           "tokens_bound": bool(bound_prompts) or how.endswith(BOUND) or images,
           "backend": cfg.get("backend"), "not_estimated_files": unbuilt.unknown}
    if capabilities(cfg).priced:
        job.update(_api_cost(config, model, cfg, missing, missing_in, not est_prompts and not unbuilt.unknown))
    return job


def _api_cost(config: dict, model: str, cfg: dict, missing: int, missing_in: int, bound: bool) -> dict:
    price = price_of(config, model, cfg)
    # output bounded by max_tokens each; a bound only when no prompt is estimated and no file uncounted
    out_tokens = missing * int(cfg.get("max_tokens") or OPENAI_SCHEMA["max_tokens"]["default"])
    return {"cost_is_bound": bound, "output_tokens_max": out_tokens, "local_server": local_server(cfg),
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
        if price_of(config, model, cfg) is None:
            warnings.append(f"{where}: no entry in prices{'.captioner' if model == CAPTIONER else ''}: "
                            f"its cost is not known")
    return warnings


def _mark(estimated: bool, bound: bool) -> str:
    """How a printed figure is known: "~" an estimate, "<=" an upper bound, "" exact."""
    return "~" if estimated else "<=" if bound else ""


def _cost(j: dict) -> str:
    if j["cost_usd"] is None:
        return "  cost: no price"
    if j["not_estimated_files"] and not j["prompts"]:
        return "  cost: not known"
    if j["local_server"] and j["cost_usd"] == 0:
        return "  cost $0.00 (local server)"
    return f"  cost {'<=' if j['cost_is_bound'] else '~'} ${j['cost_usd']:,.2f}"


def _per_model(jobs: list[dict]) -> str:
    totals: dict[str, list] = {}
    for j in jobs:
        t = totals.setdefault(j["model"], [0, 0, False, False, False, False])
        t[0] += j["missing"]
        t[1] += j["input_tokens"]
        t[2] |= bool(j["estimated_prompts"])
        t[3] |= bool(j["bounded_prompts"])
        t[4] |= j["tokens_estimated"]
        t[5] |= j["tokens_bound"]
    return "per model: " + "; ".join(f"{m} {_mark(pe, pb)}{p:,} missing prompts, {_mark(te, tb)}{t:,} input tokens"
                                    for m, (p, t, pe, pb, te, tb) in totals.items())


def format_costs(res: dict) -> str:
    out = [f"cache {res['cache_dir']}: prompts per answer job (input tokens: how each model's are counted in "
           f"brackets; ~ marks an estimate: prompts not buildable yet, each as long as a specimen question of its "
           f"measure, or tokens counted by {STAND_IN}'s encoding; <= marks an upper bound)"]
    width = max((len(j["model"]) for j in res["jobs"]), default=0)
    last = None
    for j in res["jobs"]:
        if (j["track"], j["scope"]) != last:
            last = (j["track"], j["scope"])
            out.append(f"{j['track']}/{j['scope']}")
        pm = _mark(bool(j["estimated_prompts"]), bool(j["bounded_prompts"]))
        tm = _mark(j["tokens_estimated"], j["tokens_bound"])
        line = (f"  {j['model']:<{width}}  prompts {pm:>2}{j['prompts']:>7}  cached {j['cached']:>7}  "
                f"missing {pm:>2}{j['missing']:>7}  input tokens {tm:>2}{j['input_tokens']:>10,} ({j['tokens_by']})")
        if j["not_estimated_files"]:
            line += f"  [{j['not_estimated_files']} request files not built yet, not counted]"
        if "cost_usd" in j:
            line += _cost(j)
        out.append(line)
    if not res["jobs"]:
        out.append("  (the config plans no answer jobs)")
    if res["jobs"]:
        out.append(_per_model(res["jobs"]))
    out += [f"warning: {w}" for w in res["warnings"]]
    return "\n".join(out)
