"""SRBench datasets in the lrworld contract, and the chronological leave-one-out split.

Loaders return ``(interactions, items)`` frames that follow `lrworld.data.contract`:

* MovieLens-100K: the spine's aligned Parquet (`contract` loader), or the GroupLens files read by
  the spine's ``ml-100k`` format (`ml100k_from_raw`).
* Amazon Beauty: `load_beauty_sequences` reads the 5-core ASIN sequences (``user_sequence.txt``:
  ``reviewerID asin1 asin2 ...`` in chronological order, no timestamps, ratings or titles); the
  position in the sequence becomes the timestamp. `load_amazon_reviews` / `load_amazon_meta` read
  the McAuley 2014 (python-literal lines) or 2018 (JSON lines) review and metadata files, plain or
  gzipped, when the user provides them; `attach_amazon` adds their ratings and titles.
* Yelp: `load_yelp` streams the Yelp Open Dataset ``review.json`` / ``business.json`` (one JSON
  object per line) and keeps only the fields used here (tests/support/fixtures_yelp.py writes a
  small file pair in exactly that format).

`leave_one_out` marks each user's last interaction ``test``, the one before ``valid`` and the
rest ``train`` (users with fewer than 3 interactions are kept, all ``train``, and not evaluated).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from lrworld.data.contract import DataError, finalize_interactions, finalize_items
from lrworld.data.formats import FORMATS
from lrworld.data.jsonlines import parse_literal, read_records
from lrworld.data.titles import display_title

SPLITS = ("train", "valid", "test")


# ----------------------------------------------------------------------------- MovieLens-100K

def ml100k_from_raw(raw_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """GroupLens ``u.data`` + ``u.item`` through the ``ml-100k`` format (the one reader of those
    files), as contract frames; titles in the display form every track shows, with the film's
    year ("The Matrix (1999)")."""
    inter, items, _, _ = FORMATS.get("ml-100k").load(Path(raw_dir), {"encoding": "latin-1"})
    items = pd.DataFrame({"item_id": items["item_id"], "year": items["year"], "genres": items["genres"],
                          "title": [display_title(t) + (f" ({int(y)})" if pd.notna(y) else "")
                                    for t, y in zip(items["title"], items["year"])]})
    return finalize_interactions(inter, str(Path(raw_dir) / "u.data")), finalize_items(items)


# ----------------------------------------------------------------------------- Amazon

def _records(path: str | Path) -> Iterator[dict]:
    """One record per line: strict JSON (2018 files, Yelp) or a python literal (2014 files)."""
    return (rec for _, rec in read_records(path, (), "error", Counter(), parse=parse_literal))


def load_beauty_sequences(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``reviewerID asin1 asin2 ...`` per line -> implicit interactions (rating NaN) whose timestamp
    is the 0-based position in the user's sequence; items get the ASIN as title (no titles ship)."""
    users, item_ids, pos = [], [], []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) < 2:
                raise DataError(f"{path}:{lineno}: a user with no items")
            for i, asin in enumerate(parts[1:]):
                users.append(parts[0])
                item_ids.append(asin)
                pos.append(i)
    inter = finalize_interactions(pd.DataFrame({"user_id": users, "item_id": item_ids, "timestamp": pos}), str(path))
    uniq = sorted(set(item_ids))
    items = finalize_items(pd.DataFrame({"item_id": uniq, "title": uniq}))
    return inter, items


def load_amazon_reviews(path: str | Path) -> pd.DataFrame:
    """McAuley review file (2014 ``reviews_Beauty_5.json`` or 2018 ``Beauty_5.json``, optionally
    .gz): reviewerID, asin, overall, unixReviewTime -> contract interactions."""
    rows = [(r["reviewerID"], r["asin"], r.get("overall"), r["unixReviewTime"]) for r in _records(path)]
    df = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])
    return finalize_interactions(df, str(path))


def load_amazon_meta(path: str | Path, asins: set[str] | None = None) -> pd.DataFrame:
    """McAuley metadata (2014 ``meta_Beauty.json``: python literals with ``categories`` as a list of
    paths; 2018: JSON with ``category`` as one path) -> contract items (genres = category path)."""
    rows = []
    for r in _records(path):
        asin = r.get("asin")
        if asin is None or (asins is not None and asin not in asins):
            continue
        cats = r.get("categories") or ([r["category"]] if r.get("category") else [])
        path0 = cats[0] if cats and isinstance(cats[0], list) else cats
        rows.append({"item_id": asin, "title": r.get("title") or asin, "genres": [str(c) for c in path0]})
    return finalize_items(pd.DataFrame(rows, columns=["item_id", "title", "genres"]))


def attach_amazon(inter: pd.DataFrame, items: pd.DataFrame, reviews: pd.DataFrame | None = None,
                  meta: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Add ratings (from the review file, matched on user and item) and titles/categories (from the
    metadata) to the sequence frames; the sequence order and timestamps are kept."""
    if reviews is not None:
        r = reviews.drop_duplicates(["user_id", "item_id"], keep="last")[["user_id", "item_id", "rating"]]
        inter = inter.drop(columns="rating").merge(r, on=["user_id", "item_id"], how="left")
        inter = finalize_interactions(inter, "beauty+reviews")
    if meta is not None:
        m = meta.drop_duplicates("item_id", keep="first").set_index("item_id")
        items = items.copy()
        known = items["item_id"].isin(m.index)
        items.loc[known, "title"] = m.loc[items.loc[known, "item_id"], "title"].to_numpy()
        items["genres"] = [m.at[i, "genres"] if i in m.index else g for i, g in zip(items["item_id"], items["genres"])]
        items = finalize_items(items)
    return inter, items


# ----------------------------------------------------------------------------- Yelp

def _yelp_time(s: str) -> int:
    return int(datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc).timestamp())


def load_yelp(review_path: str | Path, business_path: str | Path, kcore: int = 5) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Yelp Open Dataset ``review.json`` + ``business.json`` (JSON lines) -> contract frames.

    Interactions: user_id, business_id, stars, date (UTC). Items: name as title, ``categories``
    (a comma-separated string or null) as genres. A k-core filter (default 5, 0 = off) is applied
    as is usual for Yelp in sequential recommendation."""
    rows = [(r["user_id"], r["business_id"], r["stars"], _yelp_time(r["date"])) for r in _records(review_path)]
    inter = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])
    inter = finalize_interactions(k_core(inter, kcore) if kcore else inter, str(review_path))
    keep = set(inter["item_id"])
    brow = []
    for b in _records(business_path):
        if b["business_id"] in keep:
            cats = [c.strip() for c in (b.get("categories") or "").split(",") if c.strip()]
            brow.append({"item_id": b["business_id"], "title": b.get("name") or b["business_id"], "genres": cats})
    items = finalize_items(pd.DataFrame(brow, columns=["item_id", "title", "genres"]))
    missing = keep - set(items["item_id"])
    if missing:
        raise DataError(f"{business_path}: {len(missing)} reviewed business_id(s) missing, e.g. {sorted(missing)[:3]}")
    return inter, items


# ----------------------------------------------------------------------------- split

def k_core(inter: pd.DataFrame, k: int) -> pd.DataFrame:
    """Iteratively drop users and items with fewer than k interactions."""
    df = inter
    while True:
        uc = df["user_id"].map(df["user_id"].value_counts())
        ic = df["item_id"].map(df["item_id"].value_counts())
        keep = (uc >= k) & (ic >= k)
        if keep.all():
            return df.reset_index(drop=True)
        df = df[keep]


def leave_one_out(inter: pd.DataFrame) -> pd.DataFrame:
    """Add a ``split`` column: per user in contract order (timestamp, then item_id), the last
    interaction is ``test``, the one before ``valid``, the rest ``train``. Users with fewer than 3
    interactions are all ``train`` (never evaluated)."""
    df = inter.sort_values(["user_id", "timestamp", "item_id"], kind="mergesort").reset_index(drop=True)
    n = df.groupby("user_id")["item_id"].transform("size").to_numpy()
    pos = df.groupby("user_id").cumcount().to_numpy()
    split = np.full(len(df), "train", dtype=object)
    split[(n >= 3) & (pos == n - 1)] = "test"
    split[(n >= 3) & (pos == n - 2)] = "valid"
    df["split"] = split
    return df


def item_index(items: pd.DataFrame) -> dict[str, int]:
    """The integer id an item carries in prompts and LLM outputs. Numeric ids (MovieLens) keep
    their value; otherwise (ASINs, Yelp ids) items are numbered 1..N in sorted id order."""
    ids = items["item_id"].astype(str).tolist()
    if all(i.isdigit() for i in ids):
        return {i: int(i) for i in ids}
    return {i: n for n, i in enumerate(sorted(ids), 1)}


@dataclass
class SplitData:
    """A split dataset and everything the runner and the metrics derive from it.

    ``train`` = what the NN models are fitted on; ``valid`` = each evaluated user's second-to-last
    interaction, held out for early stopping; ``history`` = train + valid (what a model and a
    prompt see of a user at test time); ``test`` = one held-out item per evaluated user.
    Popularity P and quality Q are computed on the history only, so the test items do not leak
    into ARP/ARQ."""

    interactions: pd.DataFrame  # contract columns + split
    items: pd.DataFrame  # contract items (+ index column)
    name: str = ""
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if "split" not in self.interactions.columns:
            raise DataError(f"{self.name}: interactions have no split column")
        if "index" not in self.items.columns:
            idx = item_index(self.items)
            self.items = self.items.assign(index=self.items["item_id"].map(idx).astype("int64"))
        unknown = set(self.interactions["item_id"]) - set(self.items["item_id"])
        if unknown:
            raise DataError(f"{self.name}: {len(unknown)} interacted item(s) missing from items, e.g. {sorted(unknown)[:3]}")

    @property
    def history(self) -> pd.DataFrame:
        return self.interactions[self.interactions["split"] != "test"]

    @property
    def train(self) -> pd.DataFrame:
        return self.interactions[self.interactions["split"] == "train"]

    @property
    def valid(self) -> pd.DataFrame:
        return self.interactions[self.interactions["split"] == "valid"]

    def train_histories(self) -> dict[str, list[str]]:
        """Chronological training item ids per user (what a model knows when it is validated)."""
        if "train_hist" not in self._cache:
            self._cache["train_hist"] = self.train.groupby("user_id", sort=False)["item_id"].agg(list).to_dict()
        return self._cache["train_hist"]

    @property
    def test(self) -> pd.DataFrame:
        return self.interactions[self.interactions["split"] == "test"]

    @property
    def eval_users(self) -> list[str]:
        return self.test["user_id"].tolist()

    @property
    def targets(self) -> list[set[str]]:
        return [{i} for i in self.test["item_id"]]

    def histories(self) -> dict[str, list[str]]:
        """Chronological history item ids per user (train + valid)."""
        if "hist" not in self._cache:
            self._cache["hist"] = self.history.groupby("user_id", sort=False)["item_id"].agg(list).to_dict()
        return self._cache["hist"]

    @property
    def item_ids(self) -> list[str]:
        return self.items["item_id"].tolist()

    def popularity(self) -> dict[str, float]:
        """P: number of history interactions per item (0 for items never interacted with)."""
        counts = self.history["item_id"].value_counts()
        return {i: float(counts.get(i, 0)) for i in self.item_ids}

    def quality(self) -> dict[str, float]:
        """Q: mean history rating per item; items without a rating are absent (implicit data -> {})."""
        r = self.history.dropna(subset=["rating"])
        return {k: float(v) for k, v in r.groupby("item_id")["rating"].mean().items()}

    def index_to_item(self) -> dict[int, str]:
        return dict(zip(self.items["index"].astype(int), self.items["item_id"]))


def make_split(inter: pd.DataFrame, items: pd.DataFrame, name: str = "") -> SplitData:
    return SplitData(leave_one_out(inter), items, name)
