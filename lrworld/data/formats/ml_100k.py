"""MovieLens-100K as GroupLens ships it: u.data (TSV), u.item (pipe-separated, Latin-1), u.user."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lrworld.data.contract import check_unique
from lrworld.data.formats import encoding, register
from lrworld.data.movielens import ML100K_GENRES, split_title_year
from lrworld.data.tables import read_delimited

USER_COLUMNS = ["user_id", "age", "gender", "occupation", "zip_code"]
ITEM_COLUMNS = ["item_id", "title_raw", "release_date", "video_release_date", "imdb_url"] + ML100K_GENRES


def read_u_item(path: Path, encoding: str = "latin-1") -> pd.DataFrame:
    """u.item as the file has it (title with its year, 19 genre flags): the one reader of it, for
    this format and the LLaRA track's titles."""
    items = read_delimited(path, sep="|", names=ITEM_COLUMNS, encoding=encoding, dtypes={"item_id": "id"})
    check_unique(items, "item_id", path)
    return items


@register("ml-100k",
          licence="MovieLens (GroupLens usage licence): research use only, no commercial use, cite Harper & "
                  "Konstan 2015; no redistribution without GroupLens' permission",
          files=lambda cfg: ["u.data", "u.item"], optional=lambda cfg: ["u.user"],
          options={"encoding": encoding("latin-1")})
def load(raw: Path, cfg: dict):
    """MovieLens-100K raw layout (u.data, u.item, u.user)."""
    enc = cfg["encoding"]
    inter = read_delimited(raw / "u.data", sep="\t", names=["user_id", "item_id", "rating", "timestamp"],
                           encoding=enc, dtypes={"user_id": "id", "item_id": "id", "rating": "float",
                                                 "timestamp": "int"})
    items = read_u_item(raw / "u.item", enc)
    flags = items[ML100K_GENRES].apply(pd.to_numeric, errors="coerce").fillna(0).astype(int)
    split = items["title_raw"].fillna("").map(split_title_year)
    items_out = pd.DataFrame({
        "item_id": items["item_id"],
        "title": [s[0] for s in split],
        # The year in the title is the film's; release_date is a re-release date for some rows.
        "year": [s[1] for s in split],
        "genres": [[g for g in ML100K_GENRES if row[g] == 1 and g != "unknown"] for _, row in flags.iterrows()],
        "imdb_url": items["imdb_url"],
    })
    if (raw / "u.user").exists():
        users = read_delimited(raw / "u.user", sep="|", names=USER_COLUMNS, encoding=enc, dtypes={"user_id": "id"})
        check_unique(users, "user_id", raw / "u.user")
    else:
        users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_out, users, {}
