"""RecBole atomic files (`<prefix>.inter`, `.item`, optional `.user`): TSV with `name:type` headers.

An item file is read by what its header declares: each item field comes from a column of one of the
names RecBole's datasets use for it (ML-100K's genres are `class:token_seq`, ML-1M's
`genre:token_seq`), read as its declared type (`token_seq`: space-separated tokens; `token`: one
value; `float`: a number). A declared field that yields no value for any item is a warning with its
coverage, and every field's coverage is in the format's report (`fields`)."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError, check_unique
from lrworld.data.formats import encoding, register
from lrworld.data.tables import df_header, read_delimited

log = logging.getLogger(__name__)

PREFIX = {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$", "default": "ml-100k",
          "description": "file prefix: <prefix>.inter, <prefix>.item, <prefix>.user"}

# item field -> the header names that give it, in preference order (RecBole's dataset files)
ITEM_FIELDS = {"title": ("movie_title", "title"), "year": ("release_year", "year"), "genres": ("genre", "class")}
# values that stand for no genre, not a genre
NO_GENRE = {"unknown"}


def declared(path: Path, enc: str) -> dict[str, str]:
    """name -> declared type of each column of a RecBole header (`item_id:token` -> token)."""
    out = {}
    for col in df_header(path, "\t", enc):
        name, _, kind = col.strip().partition(":")
        out[name.strip()] = kind.strip() or "token"
    return out


def _tokens(v, kind: str) -> list[str]:
    if not isinstance(v, str) or not v.strip():
        return []
    return v.split() if kind == "token_seq" else [v.strip()]


def _field(items: pd.DataFrame, name: str, kind: str, field: str) -> pd.Series:
    col = items[name]
    if field == "year":
        return pd.to_numeric(col, errors="coerce")
    if field == "genres":
        # token_seq fields are space-separated; MovieLens genre names contain no spaces
        return col.map(lambda v: [x for x in _tokens(v, kind) if x not in NO_GENRE])
    return col.fillna("").astype(str).str.strip()


def _has(v) -> bool:
    if isinstance(v, list):
        return bool(v)
    return v is not None and v == v and v != ""


def read_items(path: Path, enc: str) -> tuple[pd.DataFrame, dict]:
    """(items with the fields the header declares, {fields: {field: {column, type, coverage}}, unused})."""
    types = declared(path, enc)
    items = read_delimited(path, sep="\t", header=True, encoding=enc, dtypes={"item_id": "id"})
    title = next((n for n in ITEM_FIELDS["title"] if n in items.columns), None)
    if title is None:
        raise DataError(f"{path}: expected column item_id and one of {list(ITEM_FIELDS['title'])}, found "
                        f"{list(items.columns)}")
    check_unique(items, "item_id", path)
    out = pd.DataFrame({"item_id": items["item_id"]})
    report, used = {}, {"item_id"}
    n = max(len(items), 1)
    for field, names in ITEM_FIELDS.items():
        name = next((x for x in names if x in items.columns), None)
        if name is None:
            continue
        used.add(name)
        out[field] = _field(items, name, types.get(name, "token"), field)
        cov = round(sum(_has(v) for v in out[field]) / n, 4)
        report[field] = {"column": f"{name}:{types.get(name, 'token')}", "coverage": cov}
        if cov == 0.0:
            log.warning("%s: declared field %s:%s gives no %s for any of its %d items (coverage 0.0)",
                        path, name, types.get(name, "token"), field, len(items))
    if "year" not in out:
        out["year"] = None
    if "genres" not in out:
        out["genres"] = [[] for _ in range(len(out))]
    return out, {"fields": report, "unused_columns": sorted(c for c in items.columns if c not in used)}


@register("recbole-atomic",
          licence="RecBole's atomic copy of MovieLens: the GroupLens usage licence applies (research "
                  "use, no redistribution without permission); RecBole code is MIT",
          files=lambda cfg: [f"{cfg['prefix']}.inter", f"{cfg['prefix']}.item"],
          optional=lambda cfg: [f"{cfg['prefix']}.user"],
          options={"prefix": PREFIX, "encoding": encoding("utf-8")})
def load(raw: Path, cfg: dict):
    """RecBole atomic export (e.g. the ML-100K files in the recbole wheel, LLMRank's ML-1M item file)."""
    prefix, enc = cfg["prefix"], cfg["encoding"]
    inter = read_delimited(raw / f"{prefix}.inter", sep="\t", header=True, encoding=enc,
                           dtypes={"user_id": "id", "item_id": "id", "rating": "float", "timestamp": "int"})
    items_out, report = read_items(raw / f"{prefix}.item", enc)
    user_path = raw / f"{prefix}.user"
    if user_path.exists():
        users = read_delimited(user_path, sep="\t", header=True, encoding=enc, dtypes={"user_id": "id"})
        check_unique(users, "user_id", user_path)
    else:
        users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_out, users, report
