"""MovieLens-25M / ml-latest(-small): ratings.csv, movies.csv (genres '|'-separated), links.csv."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lrworld.data.contract import check_unique
from lrworld.data.formats import encoding, register
from lrworld.data.movielens import split_title_year
from lrworld.data.tables import read_delimited
from lrworld.data.textio import resolve


@register("ml-latest",
          licence="MovieLens (GroupLens usage licence): research use only, no commercial use, cite Harper & "
                  "Konstan 2015; no redistribution without GroupLens' permission",
          files=lambda cfg: ["ratings.csv", "movies.csv"], optional=lambda cfg: ["links.csv"],
          item_ids="movielens",
          options={"encoding": encoding("utf-8")})
def load(raw: Path, cfg: dict):
    """MovieLens-25M / ml-latest layout (ratings.csv, movies.csv, links.csv when present)."""
    enc = cfg["encoding"]
    inter = read_delimited(raw / "ratings.csv", sep=",", header=True, encoding=enc,
                           dtypes={"userId": "id", "movieId": "id", "rating": "float", "timestamp": "int"})
    inter = inter.rename(columns={"userId": "user_id", "movieId": "item_id"})
    movies = read_delimited(raw / "movies.csv", sep=",", header=True, encoding=enc, dtypes={"movieId": "id"})
    check_unique(movies, "movieId", raw / "movies.csv")
    split = movies["title"].fillna("").map(split_title_year)
    items_out = pd.DataFrame({
        "item_id": movies["movieId"],
        "title": [s[0] for s in split],
        "year": [s[1] for s in split],
        "genres": movies["genres"].fillna("").map(
            lambda g: [x for x in g.split("|") if x and x != "(no genres listed)"]),
    })
    links = resolve(raw, "links.csv")  # optional; its .gz twin counts too
    if links.exists():
        ln = read_delimited(links, sep=",", header=True, encoding=enc, dtypes={"movieId": "id"})
        items_out = items_out.merge(
            ln.rename(columns={"movieId": "item_id", "imdbId": "imdb_id", "tmdbId": "tmdb_id"})[
                ["item_id", "imdb_id", "tmdb_id"]], on="item_id", how="left")
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_out, users, {}
