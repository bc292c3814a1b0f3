"""`lrworld status`: per track, scope (dataset) and model, how many of the prompts the config
needs are answered in the response cache, so a cluster user sees progress across jobs.

The requests come from the prompt files the plan names (`Plan.requests`, the `answer` rule's
inputs) that exist; a file not yet built is listed as not yet planned, since its prompts are not
known before its job runs. A cache key hashes the model identity, and a local model's identity
(weights and chat-template hashes) is only known once the model is loaded, so the answered count
is taken under each identity the model's cache shards record, and the one answering the most is
shown (its id is the one `lrworld cache list` prints).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from lrworld.core import io
from lrworld.config.assembly import fill_defaults, validate
from lrworld.config.files import load
from lrworld.inference import shards
from lrworld.inference.cache import identity_key, request_key
from lrworld.workflow.plan import Plan

ROOT = Path(__file__).resolve().parents[2]  # the checkout: the plan's templates and code


def _answered(cache_dir: Path, model: str, requests: list[dict], known: list[dict]) -> tuple[int, str | None]:
    """The most `requests` answered under one identity (those the model's shards record, and
    `known`), and that identity's id. Read-only: a missing shard is an empty cache, status never
    makes one, and a shard it cannot read (a killed job's, not yet rolled back) counts as empty."""
    best, best_id = 0, None
    if not requests:
        return best, best_id
    dbs = []
    for path in shards.shards(cache_dir, model):
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            db.execute("SELECT COUNT(*) FROM responses").fetchone()
            dbs.append(db)
        except sqlite3.DatabaseError:
            continue
    try:
        recorded = []
        for db in dbs:
            try:
                recorded += [json.loads(t) for (t,) in db.execute("SELECT identity FROM identities").fetchall()]
            except sqlite3.OperationalError:  # a cache from before identities were recorded
                pass
        seen = []
        for ident in [*known, *recorded]:
            if ident in seen:
                continue
            seen.append(ident)
            keys = sorted({request_key(ident, r) for r in requests})
            found: set[str] = set()
            for db in dbs:
                for first in range(0, len(keys), 500):
                    chunk = keys[first:first + 500]
                    found.update(k for (k,) in db.execute(
                        f"SELECT key FROM responses WHERE key IN ({','.join('?' * len(chunk))})", chunk))
            if len(found) > best:
                best, best_id = len(found), identity_key(ident)
    finally:
        for db in dbs:
            db.close()
    return best, best_id


def status(directory: str | Path = ".", configfiles=(), overrides: dict | None = None) -> dict:
    """What `lrworld status` prints: the run's config as `snakemake -d DIRECTORY --configfile
    CONFIGFILES` sees it, and per answer job the prompts needed, answered and not yet planned."""
    directory = Path(directory)
    config = load(directory, configfiles, overrides)
    validate(config)
    fill_defaults(config)
    plan = Plan(config, ROOT)
    cache_dir = Path(config["cache_dir"])
    cache_dir = cache_dir if cache_dir.is_absolute() else directory / cache_dir
    jobs, read = [], {}
    for track, scope, model in plan.answer_jobs():
        files = plan.requests(track, scope, model)
        prompt_files = [f for f in files if f.endswith(".jsonl")]
        built = [f for f in prompt_files if (directory / f).exists()]
        requests = []
        for f in built:
            if f not in read:
                read[f] = list(io.read_jsonl(directory / f))
            requests.extend(read[f])
        distinct = {request_key({}, r): r for r in requests}  # identical requests are asked once
        unique = list(distinct.values())
        # the identity of the last finished answer job, for caches that do not record identities
        done = directory / f"results/answers/{track}/{scope}/{model}.json"
        known = [io.read_json(done)["identity"]] if done.exists() else []
        answered, ident = _answered(cache_dir, model, unique, known)
        jobs.append({"track": track, "scope": scope, "model": model, "needed": len(unique),
                     "answered": answered, "identity": ident, "prompt_files": len(prompt_files),
                     "not_planned": [f for f in prompt_files if f not in built]})
    return {"directory": str(directory), "cache_dir": str(cache_dir), "jobs": jobs}


def format_status(res: dict) -> str:
    out = [f"cache {res['cache_dir']}: answered / needed prompts per answer job"]
    last = None
    width = max((len(j["model"]) for j in res["jobs"]), default=0)
    for j in res["jobs"]:
        if (j["track"], j["scope"]) != last:
            last = (j["track"], j["scope"])
            out.append(f"{j['track']}/{j['scope']}")
        share = f" ({j['answered'] / j['needed']:.0%})" if j["needed"] else ""
        line = f"  {j['model']:<{width}}  {j['answered']:>6} / {j['needed']:<6}{share}"
        if j["identity"]:
            line += f"  identity {j['identity'][:12]}"
        if j["not_planned"]:
            line += (f"  [{len(j['not_planned'])} of {j['prompt_files']} prompt files not built yet: "
                     f"their prompts are not counted]")
        out.append(line)
    if not res["jobs"]:
        out.append("  (the config plans no answer jobs)")
    return "\n".join(out)
