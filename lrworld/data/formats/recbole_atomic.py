"""RecBole atomic files (`<prefix>.inter`, `.item`, optional `.user`): TSV with `name:type` headers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError, check_unique
from lrworld.data.formats import encoding, register
from lrworld.data.tables import read_delimited

PREFIX = {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$", "default": "ml-100k",
          "description": "file prefix: <prefix>.inter, <prefix>.item, <prefix>.user"}


@register("recbole-atomic",
          licence="RecBole's atomic copy of MovieLens: the GroupLens usage licence applies (research "
                  "use, no redistribution without permission); RecBole code is MIT",
          files=lambda cfg: [f"{cfg['prefix']}.inter", f"{cfg['prefix']}.item"],
          optional=lambda cfg: [f"{cfg['prefix']}.user"],
          options={"prefix": PREFIX, "encoding": encoding("utf-8")})
def load(raw: Path, cfg: dict):
    """RecBole atomic export (e.g. the ML-100K files in the recbole wheel)."""
    prefix, enc = cfg["prefix"], cfg["encoding"]
    inter = read_delimited(raw / f"{prefix}.inter", sep="\t", header=True, encoding=enc,
                           dtypes={"user_id": "id", "item_id": "id", "rating": "float", "timestamp": "int"})
    items = read_delimited(raw / f"{prefix}.item", sep="\t", header=True, encoding=enc, dtypes={"item_id": "id"})
    need = {"item_id", "movie_title"}
    if not need <= set(items.columns):
        raise DataError(f"{raw / (prefix + '.item')}: expected columns {sorted(need)}, found {list(items.columns)}")
    check_unique(items, "item_id", raw / f"{prefix}.item")
    year = pd.to_numeric(items.get("release_year"), errors="coerce") if "release_year" in items else None
    items_out = pd.DataFrame({
        "item_id": items["item_id"],
        "title": items["movie_title"].fillna("").astype(str).str.strip(),
        "year": year,
        # token_seq fields are space-separated; MovieLens genre names contain no spaces.
        "genres": items["class"].fillna("").astype(str).str.split().map(lambda g: [x for x in g if x != "unknown"])
        if "class" in items else [[] for _ in range(len(items))],
    })
    user_path = raw / f"{prefix}.user"
    if user_path.exists():
        users = read_delimited(user_path, sep="\t", header=True, encoding=enc, dtypes={"user_id": "id"})
        check_unique(users, "user_id", user_path)
    else:
        users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_out, users, {}
