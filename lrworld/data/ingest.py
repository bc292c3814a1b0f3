"""Ingest one configured dataset: read its published layout (a registered format), apply the
metadata joins its `metadata:` block names, check every join's alignment against
`min_alignment`, report each knowledge field's coverage, and return the contract frames."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from lrworld.data import contract, facts, titles, works
from lrworld.data.schema import dataset_defaults
from lrworld.data.contract import DataError
from lrworld.data.formats import FORMATS
from lrworld.data.joins import fill, for_format, paths
from lrworld.data.textio import ENCODING_HINT, EncodingError

log = logging.getLogger(__name__)

# Item fields a knowledge measure may ask about (their coverage is in every ingest report).
KNOWLEDGE_FIELDS = ("genres", "director", "cast", "plot", "poster_url", "brand", "color", "category_root",
                    "category_interm", "category_leaf")


def coverage(items: pd.DataFrame, fields) -> dict[str, float]:
    n = max(len(items), 1)

    def has(v) -> bool:
        if isinstance(v, (list, tuple)) or hasattr(v, "__len__") and not isinstance(v, str):
            return len(v) > 0
        return v is not None and v == v and v != ""

    return {f: round(sum(has(v) for v in items[f]) / n, 4) for f in fields if f in items.columns}


def floor_of(meta: dict, join: str) -> float:
    m = meta["min_alignment"]
    return float(m) if isinstance(m, (int, float)) else float(m.get(join, m["default"]))


def ingest(name: str, cfg: dict, raw_dir: str | Path, metadata_paths: dict):
    """(interactions, items, users, report) of `ingest_with_facts`."""
    return ingest_with_facts(name, cfg, raw_dir, metadata_paths)[:4]


def ingest_with_facts(name: str, cfg: dict, raw_dir: str | Path, metadata_paths: dict):
    """(interactions, items, users, report, facts table). `metadata_paths`: {metadata key: path or [paths]} as the rule's inputs name them."""
    cfg = with_metadata_paths(cfg, metadata_paths)
    # the top-level `facts:` policy travels with the dataset entry (plan.ingest_cfg)
    policy = cfg.get("facts") or {}
    cfg = dataset_defaults(name, {k: v for k, v in cfg.items() if k != "facts"})
    inter, items, users, report = load_format(name, cfg, raw_dir)
    witnessed = facts.Facts()
    witnessed.record(cfg["format"], items, KNOWLEDGE_FIELDS + ("imdb_id",))
    items, joins_report = apply_joins(name, cfg, items, inter, metadata_paths, witnessed)
    if joins_report:
        report["joins"] = joins_report
    items, facts_table, report["facts"] = facts.reconcile(
        items, witnessed, policy.get("require_agreement", True), int(policy.get("min_witnesses", 1)))
    inter, items = display_and_merge(name, cfg, items, inter, report)
    inter, users = checked_interactions(name, cfg, inter, items, users, raw_dir, report)
    return inter, items, users, report, to_kept_ids(facts_table, items)


def with_metadata_paths(cfg: dict, metadata_paths: dict) -> dict:
    """The dataset entry with its `metadata:` files as the rule's inputs name them."""
    # The rule's inputs name the metadata files; they stand in for the config's values (fetched
    # metadata lives under results/raw/), which keeps direct calls and the graph on one schema.
    named = {k: [str(p) for p in v] if isinstance(v, (list, tuple)) else str(v) for k, v in metadata_paths.items()}
    # a key the config gives as one file stays one file (Snakemake hands every input over as a list)
    given = cfg.get("metadata", {})
    named = {k: v[0] if isinstance(v, list) and len(v) == 1 and not isinstance(given.get(k), list) else v
             for k, v in named.items()}
    if named:
        cfg = dict(cfg, metadata={k: v for k, v in {**cfg.get("metadata", {}), **named}.items() if k != "source"})
    return cfg


def load_format(name: str, cfg: dict, raw_dir: str | Path):
    """(interactions, items, users, report) as the dataset's format reads its files."""
    fmt = cfg["format"]
    try:
        inter, items, users, fmt_report = FORMATS.get(fmt).load(Path(raw_dir), cfg)
    except EncodingError as exc:
        # the file's reader knows the file, not which dataset's key chose the encoding
        text = str(exc)
        if not text.endswith(ENCODING_HINT):  # another key would not help (a stray byte-order mark)
            raise DataError(f"{text} (datasets.{name}.encoding is {cfg.get('encoding')!r})") from None
        raise DataError(f"{text.removesuffix(ENCODING_HINT)}set datasets.{name}.encoding "
                        f"(now {cfg.get('encoding')!r})") from None
    items = contract.finalize_items(items)
    contract.check_unique(items, "item_id", f"datasets.{name} items")
    # which spelling of each file was read (a `.gz` twin where only that exists)
    read = FORMATS.get(fmt).inputs(cfg, raw_dir)
    # raw_interactions: what the files hold (a format that drops some, e.g. Amazon reviews without
    # metadata, says how many it read); loaded_interactions: what the format kept
    report: dict = {"dataset": name, "format": fmt, "files_read": read,
                    "raw_interactions": int(fmt_report.get("interactions_read", len(inter))),
                    "loaded_interactions": int(len(inter)), fmt: fmt_report}
    return inter, items, users, report


def apply_joins(name: str, cfg: dict, items: pd.DataFrame, inter: pd.DataFrame, metadata_paths: dict,
                witnessed: facts.Facts) -> tuple[pd.DataFrame, dict]:
    """(items filled by every metadata join of the format, {join: report}); each join's values are
    recorded in `witnessed` under its name; a join below `min_alignment` stops the ingest."""
    fmt, meta = cfg["format"], cfg.get("metadata", {})
    given = {k: paths(v) for k, v in metadata_paths.items()}
    joins_report, doubted, confirmed = {}, [], set()
    for join in for_format(fmt):
        files = {k: given[k] for k in join.keys + join.optional_keys if k in given}
        if not files:
            continue
        # (a join missing one of its keys was rejected by the schema: dependentRequired)
        items, joins_report[join.name] = _join(name, cfg, join, files, items, inter, witnessed)
        doubted += joins_report[join.name].pop("other_work", [])
        confirmed |= set(joins_report[join.name].pop("same_work", []))
    # an IMDb id one join finds titled otherwise names another film, unless a join that reads
    # IMDb's own titles (title.akas) found the item's title among them
    for item, imdb, why, *reason in doubted:
        if (item, imdb) not in confirmed:
            witnessed.forget(item, imdb, reason[0] if reason else "imdb_id_titled_otherwise_in_hetrec", why)
    unused = sorted(set(given) - {k for j in for_format(fmt) for k in j.keys + j.optional_keys})
    if unused:
        raise DataError(f"datasets.{name}.metadata: {unused[0]} does not apply to format {fmt}")
    return items, joins_report


def _join(name: str, cfg: dict, join, files: dict, items: pd.DataFrame, inter: pd.DataFrame,
          witnessed: facts.Facts) -> tuple[pd.DataFrame, dict]:
    meta, fmt = cfg.get("metadata", {}), cfg["format"]
    # Each join sees the item without the fields it fills, so every source's own values are
    # recorded (a fill-only join would hide a second source's disagreement).
    before = items
    blank = items.assign(**{f: [[] if f in contract.LIST_COLUMNS else None] * len(items)
                            for f in join.fields})
    out, rep = join.apply(blank, inter, files, dict(meta, on_bad_line=cfg.get("on_bad_line"), format=fmt))
    out = contract.finalize_items(out)
    witnessed.record(join.name, out, join.fields, witness=join.witness)
    witnessed.credit(rep.pop("people", {}))
    prev = {f: dict(zip(before["item_id"].astype(str), before[f])) for f in join.fields if f in before}
    items = out.assign(**{f: [fill(prev[f].get(i), v) for i, v in zip(out["item_id"], out[f])]
                          for f in prev})
    rate = round(rep["aligned"] / max(len(items), 1), 4)
    rep.update({"items": int(len(items)), "alignment_rate": rate, "coverage": coverage(items, join.fields)})
    floor = floor_of(meta, join.name)
    if rate < floor:
        raise DataError(f"datasets.{name}.metadata: join {join.name} aligned {rep['aligned']} of {len(items)} "
                        f"items ({rate:.2%}), below min_alignment {floor}; check {join.check}, or lower "
                        f"metadata.min_alignment")
    return items, rep


def display_and_merge(name: str, cfg: dict, items: pd.DataFrame, inter: pd.DataFrame, report: dict):
    """(interactions, items) with display titles and one id per work, as the dataset entry asks; the
    works merged on title + year alone are a warning naming them (no id confirms they are one)."""
    if cfg.get("display_titles", True):
        # after every join: Netflix metadata is aligned by the file's own title form
        items, report["display_titles"] = titles.apply_display_titles(items)
    if cfg.get("merge_same_work", True):
        # after the joins (keyed by the file's ids, so every id got its row) and the display titles
        items, inter, report["same_work_merged"] = works.merge_same_work(items, inter)
        by_title = works.title_year_only(report["same_work_merged"])
        if by_title:
            log.warning("datasets.%s: %d groups of items merged as one work on title + year alone (no external "
                        "id joins or tells them apart; merge_same_work: false keeps them apart): %s", name,
                        len(by_title), "; ".join(by_title))
    return inter, items


def checked_interactions(name: str, cfg: dict, inter: pd.DataFrame, items: pd.DataFrame, users: pd.DataFrame,
                         raw_dir, report: dict):
    """(interactions, users) in the contract's form, every interaction naming a known item; the
    report's counts."""
    fmt = cfg["format"]
    inter = contract.finalize_interactions(inter, f"datasets.{name}")
    unknown = ~inter["item_id"].isin(items["item_id"])
    if unknown.any():
        raise DataError(f"datasets.{name}: {int(unknown.sum())} interactions name items missing from the item file "
                        f"(first: item {inter.loc[unknown, 'item_id'].iloc[0]})")
    if inter.empty:  # an empty dataset would build empty questions and tables with exit code 0
        raise DataError(f"datasets.{name}: no interactions left ({report['raw_interactions']} read from {raw_dir}, "
                        f"{report['loaded_interactions']} kept by format {fmt}); check the source files")
    users = contract.finalize_users(users.rename(columns=str))
    report.update({
        "interactions": int(len(inter)),
        # exact repeats (user, item, timestamp); one user's events on two ids of one work are counted
        # under same_work_merged
        "duplicates_dropped": int(report["loaded_interactions"] - len(inter)
                                  - report.get("same_work_merged", {}).get("interactions_dropped_same_user", 0)),
        "users": int(inter["user_id"].nunique()),
        "items": int(len(items)),
        "items_with_interactions": int(inter["item_id"].nunique()),
        "field_coverage": coverage(items, KNOWLEDGE_FIELDS),
    })
    return inter, users


def to_kept_ids(facts_table: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """The facts of a merged id belong to the work's kept id."""
    to = {m: str(i) for i, ms in zip(items["item_id"], items["original_ids"]) for m in ms} \
        if "original_ids" in items else {}
    facts_table["item_id"] = facts_table["item_id"].map(lambda i: to.get(i, i))
    return facts_table
