"""The `lrworld` command: trace a number back to its inputs, check those inputs still match,
inspect or purge the response cache, and see how far the answer jobs are.

    lrworld explain results/tables/ml100k.csv random attr_genre [--records] [--json]
    lrworld verify [TABLE ... | RELEASE] [--json]
    lrworld pack DATASET OUT [-d DIR]
    lrworld cache list [--json]
    lrworld cache purge MODEL [--identity ID]
    lrworld status [--configfile FILE ...] [--config KEY=VALUE ...] [--json]
    lrworld plan [--configfile FILE ...] [--config KEY=VALUE ...] [--json]
    lrworld --version
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys

from pathlib import Path

from lrworld.core import plugins
from lrworld.core.schema import ConfigError
from lrworld.inference import shards
from lrworld.inference.cache import CacheError


class _Version(argparse.Action):
    """Reads git only when asked (argparse's own version action wraps the line and is built eagerly)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from lrworld.provenance import code_version

        print(code_version.describe())
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    # no abbreviations: `--config` is its own option, never short for `--configfile`
    ap = argparse.ArgumentParser(prog="lrworld", description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("--version", action=_Version, nargs=0, help="print the version and git commit of this code, and exit")
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser = functools.partial(sub.add_parser, allow_abbrev=False)
    ex = sub.add_parser("explain", help="walk from one table cell to the raw data, with hashes and rules")
    ex.add_argument("table", help="results/tables/<dataset>.csv (or .md), or a dataset name")
    ex.add_argument("row", help="the row: a model name")
    ex.add_argument("column", help="the column: a measure, or measure@variant")
    ex.add_argument("--records", action="store_true", help="also list the per-question records behind the number")
    ex.add_argument("--json", action="store_true", help="print JSON")
    ex.add_argument("-d", "--directory", help="the workflow directory (default: the table's, or the current one)")
    ve = sub.add_parser("verify", help="re-hash every file behind the tables' numbers; exit 1 on any mismatch")
    ve.add_argument("tables", nargs="*", help="tables to check (default: every table with provenance)")
    ve.add_argument("--json", action="store_true", help="print JSON")
    ve.add_argument("-d", "--directory", help="the workflow directory (default: the current one)")
    pk = sub.add_parser("pack", help="write a dataset's questions, prompts and audit as a release folder")
    pk.add_argument("dataset", help="a built dataset's name")
    pk.add_argument("out", help="the release folder to write (new or empty)")
    pk.add_argument("-d", "--directory", help="the workflow directory (default: the current one)")
    ca = sub.add_parser("cache", help="list the response cache's models and identities, or purge them")
    ca_sub = ca.add_subparsers(dest="action", required=True)
    ca_sub.add_parser = functools.partial(ca_sub.add_parser, allow_abbrev=False)
    ls = ca_sub.add_parser("list", help="per model: entries, size, and entries per identity")
    ls.add_argument("--json", action="store_true", help="print JSON")
    pu = ca_sub.add_parser("purge", help="delete a model's cached answers (all, or one identity's)")
    pu.add_argument("model", help="the model's name in config.yaml (its shards <cache_dir>/responses/<model>/)")
    pu.add_argument("--identity", help="only this identity (an id or a unique prefix, from `lrworld cache list`)")
    for p in (ls, pu):
        p.add_argument("--cache-dir", help="the cache folder (default: cache_dir of the workflow's config.yaml)")
        p.add_argument("-d", "--directory", help="the workflow directory (default: the current one)")
    st = sub.add_parser("status", help="per dataset and model: prompts answered in the cache out of those needed")
    st.add_argument("--configfile", nargs="+", default=[], help="the run's --configfile files, as given to snakemake")
    st.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE",
                    help="the run's --config settings, as given to snakemake (e.g. 'variants=[zero_shot]')")
    st.add_argument("--json", action="store_true", help="print JSON")
    st.add_argument("-d", "--directory", help="the workflow directory (default: the current one)")
    pl = sub.add_parser("plan", help="what a run asks: per dataset the questions, prompts and jobs; per dataset and "
                                     "model the prompts to ask, cached, missing, input tokens and API cost; "
                                     "warns of a missing API key")
    pl.add_argument("--configfile", nargs="+", default=[], help="the run's --configfile files, as given to snakemake")
    pl.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE",
                    help="the run's --config settings, as given to snakemake (e.g. 'variants=[zero_shot]')")
    pl.add_argument("--paper-models", action="store_true", help="count every model with a paper_name as enabled")
    pl.add_argument("--json", action="store_true", help="print JSON")
    pl.add_argument("-d", "--directory", help="the workflow directory (default: the current one)")
    rf = sub.add_parser("reference", help="write the reference pages (config keys, registries, this command line) "
                                          "from the code")
    rf.add_argument("out", nargs="?", default="docs/reference", help="the folder to write (default: docs/reference)")
    return ap


def _overrides(args) -> dict:
    from lrworld.config.files import parse_overrides

    try:
        return parse_overrides(args.config)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _cache_dir(args) -> Path:
    root = Path(args.directory or ".")
    if args.cache_dir:
        return Path(args.cache_dir)
    from lrworld.config.assembly import schema
    from lrworld.core.yamlfile import load_yaml

    cfg = root / "config.yaml"
    value = (load_yaml(cfg) or {}).get("cache_dir") if cfg.exists() else None
    if value is None:
        value = schema()["properties"]["cache_dir"]["default"]
    path = Path(value)
    return path if path.is_absolute() else root / path


MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


def _cache(args) -> int:
    folder = _cache_dir(args)
    if args.action == "purge":
        # a model's name, never a path: `../../victim` or `/tmp/x` would name a file elsewhere
        if not MODEL_NAME.fullmatch(args.model) or ".." in args.model:
            raise CacheError(f"cache purge: {args.model!r} is not a model name (letters, digits, _ . + -; "
                             f"no path); `lrworld cache list` shows the cached models")
        n = shards.purge(folder, args.model, args.identity)
        print(f"lrworld cache: purged {n} answers of {args.model}" + (f" (identity {args.identity})" if args.identity else ""))
        return 0
    models = []
    for model in shards.cached_models(folder):
        try:
            models.append({"model": model, **shards.summary(folder, model)})
        except CacheError as exc:  # another program's database beside the caches: not ours to touch
            print(f"lrworld cache: skipped {exc}", file=sys.stderr)
    if args.json:
        print(json.dumps({"cache_dir": str(folder), "models": models}, indent=2, sort_keys=True))
        return 0
    print(f"{folder}: {len(models)} models, {sum(m['entries'] for m in models)} answers, "
          f"{sum(m['bytes'] for m in models) / 1e6:.2f} MB")
    for m in models:
        print(f"  {m['model']}: {m['entries']} answers, {m['bytes'] / 1e6:.2f} MB")
        for ident in m["identities"]:
            desc = ", ".join(f"{k}={v}" for k, v in (ident["identity"] or {}).items() if v is not None) \
                or "(recorded before identities were kept)"
            print(f"    {(ident['id'] or '-')[:12]}  {ident['entries']:>7}  {desc}")
    return 0


def _use_plugin_folders(args) -> None:
    """The config's `plugins:` folders on the path before any registry loads (lrworld/core/plugins.py):
    status and plan read the config as the graph does."""
    if args.command in ("status", "plan"):
        from lrworld.config.files import load

        plugins.use_folders(load(args.directory or ".", args.configfile).get("plugins"))


def _reference(args) -> int:
    from lrworld.docsgen import reference

    for path in reference.write(args.out, _parser()):
        print(f"lrworld reference: wrote {path}")
    return 0


def _status(args) -> int:
    from lrworld.workflow import status  # the plan imports snakemake: only for this command

    res = status.status(args.directory or ".", args.configfile, _overrides(args))
    print(json.dumps(res, indent=2, sort_keys=True) if args.json else status.format_status(res))
    return 0


def _plan(args) -> int:
    from lrworld.workflow import costs, paper_run, scale  # the plan imports snakemake: only for this command

    where = args.directory or "."
    planned = scale.load_plan(where, args.configfile, args.paper_models, _overrides(args))
    res = {"scale": scale.scale(plan=planned), "costs": costs.plan_costs(where, plan=planned)}
    res["paper_run"] = paper_run.paper_run(planned, res["scale"])
    beside = paper_run.format_paper_run(res["paper_run"])
    print(json.dumps(res, indent=2, sort_keys=True) if args.json
          else scale.format_scale(res["scale"]) + "\n\n" + costs.format_costs(res["costs"])
          + ("\n\n" + beside if beside else ""))
    for w in res["costs"]["warnings"]:
        print(f"lrworld plan: warning: {w}", file=sys.stderr)
    return 0


def _explain(args) -> int:
    from lrworld.provenance import trace

    res = trace.explain(args.table, args.row, args.column, args.directory, records=args.records)
    print(json.dumps(res, indent=2, sort_keys=True) if args.json else trace.format_explain(res))
    return 0


def _pack(args) -> int:
    from lrworld.release import pack

    man = pack.pack(args.directory or ".", args.dataset, args.out)
    print(f"lrworld pack: {args.out}: {len(man['files'])} files, {len(man['measures'])} measures x "
          f"{len(man['variants'])} variants; audit passed")
    return 0


def _verify(args) -> int:
    """A release folder (one argument holding a release manifest), else the tables' provenance."""
    from lrworld.release import layout

    if len(args.tables) == 1 and (Path(args.tables[0]) / layout.MANIFEST).exists():
        return _verify_release(args)
    return _verify_tables(args)


def _verify_release(args) -> int:
    from lrworld.release import pack

    res = pack.verify(args.tables[0])
    print(json.dumps(res, indent=2, sort_keys=True) if args.json else pack.format_verify(res))
    return 0 if res["ok"] else 1


def _verify_tables(args) -> int:
    """The files behind the tables re-hashed, and the responses files compared with the response cache."""
    from lrworld.provenance import trace
    from lrworld.workflow import replies  # the scores against the response cache

    res = trace.verify(args.directory, args.tables or None)
    args.cache_dir = None
    res["replies_changed"] = replies.changed_replies(args.directory or ".", _cache_dir(args))
    res["ok"] = res["ok"] and not res["replies_changed"]
    text = trace.format_verify(res) if res["problems"] or not res["replies_changed"] else \
        f"verify: {len(res['replies_changed'])} responses files differ from the response cache"
    if res["replies_changed"] and not args.json:
        text += "\n" + replies.format_changed(res["replies_changed"])
    print(json.dumps(res, indent=2, sort_keys=True) if args.json else text)
    return 0 if res["ok"] else 1


COMMANDS = {"reference": _reference, "cache": _cache, "status": _status, "plan": _plan, "explain": _explain,
            "pack": _pack, "verify": _verify}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        _use_plugin_folders(args)
    except plugins.PluginError as exc:
        print(f"lrworld: config: {exc}", file=sys.stderr)
        return 2
    # the registries load with these (a release reads the formats' licences)
    from lrworld.provenance import trace
    from lrworld.release import layout, pack  # noqa: F401 - loaded here, before any command runs

    try:
        return COMMANDS[args.command](args)
    except (trace.TraceError, CacheError, ConfigError, pack.ReleaseError) as exc:
        print(f"lrworld {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `lrworld explain ... | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
