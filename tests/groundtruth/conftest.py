"""Test helper: real ML-100K in the data contract (the lead's loader will replace this)."""

from __future__ import annotations

import pandas as pd
import pytest

from lrworld.data.contract import finalize_interactions, finalize_items

GENRES = ["unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
          "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery",
          "Romance", "Sci-Fi", "Thriller", "War", "Western"]


def load_ml100k(shared_data):
    raw = shared_data / "movielens-100k" / "raw"
    df = pd.read_csv(raw / "u.data", sep="\t", header=None,
                     names=["user_id", "item_id", "rating", "timestamp"])
    inter = finalize_interactions(df, "u.data")
    cols = ["item_id", "title", "release_date", "video_release_date", "url"] + GENRES
    it = pd.read_csv(raw / "u.item", sep="|", header=None, names=cols, encoding="latin-1")
    it["year"] = pd.to_datetime(it["release_date"], format="%d-%b-%Y", errors="coerce").dt.year
    flags = it[GENRES].to_numpy()
    it["genres"] = [[g for g, f in zip(GENRES, row) if f] for row in flags]
    items = finalize_items(it[["item_id", "title", "year", "genres"]])
    return inter, items


@pytest.fixture(scope="session")
def ml100k(shared_data):
    return load_ml100k(shared_data)
