"""MovieLens loaders: the ML-100K raw layout, RecBole's atomic export of ML-100K, and the
ML-25M / ml-latest layout. Each returns (interactions, items, users) in the column contract."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.tables import read_delimited

# u.item's 19 genre flags, in file order (u.genre).
ML100K_GENRES = [
    "unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary",
    "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller",
    "War", "Western",
]

_TITLE_YEAR = re.compile(r"^(?P<title>.*?)\s*\((?P<year>\d{4})\)\s*$")


def split_title_year(title: str) -> tuple[str, int | None]:
    """'Toy Story (1995)' -> ('Toy Story', 1995); a title without a year keeps its text."""
    m = _TITLE_YEAR.match(title.strip())
    if not m:
        return title.strip(), None
    return m.group("title"), int(m.group("year"))


def load_ml100k(raw_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    raw = Path(raw_dir)
    inter = read_delimited(raw / "u.data", sep="\t", names=["user_id", "item_id", "rating", "timestamp"],
                           dtypes={"user_id": "int", "item_id": "int", "rating": "float", "timestamp": "int"})
    item_cols = ["item_id", "title_raw", "release_date", "video_release_date", "imdb_url"] + ML100K_GENRES
    items = read_delimited(raw / "u.item", sep="|", names=item_cols, encoding="latin-1",
                           dtypes={"item_id": "int"})
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
    users = read_delimited(raw / "u.user", sep="|", names=["user_id", "age", "gender", "occupation", "zip_code"]) \
        if (raw / "u.user").exists() else pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_out, users


def load_recbole_atomic(raw_dir: str | Path, prefix: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """RecBole atomic files (`<prefix>.inter`, `.item`, `.user`): TSV with `name:type` headers."""
    raw = Path(raw_dir)
    inter = read_delimited(raw / f"{prefix}.inter", sep="\t", header=True,
                           dtypes={"user_id": "int", "item_id": "int", "rating": "float", "timestamp": "int"})
    items = read_delimited(raw / f"{prefix}.item", sep="\t", header=True, dtypes={"item_id": "int"})
    need = {"item_id", "movie_title"}
    if not need <= set(items.columns):
        raise DataError(f"{raw / (prefix + '.item')}: expected columns {sorted(need)}, found {list(items.columns)}")
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
    users = read_delimited(user_path, sep="\t", header=True) if user_path.exists() \
        else pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_out, users


def load_ml_latest(raw_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """ML-25M / ml-latest(-small): ratings.csv, movies.csv (genres '|'-separated), optional links.csv."""
    raw = Path(raw_dir)
    inter = read_delimited(raw / "ratings.csv", sep=",", header=True,
                           dtypes={"userId": "int", "movieId": "int", "rating": "float", "timestamp": "int"})
    inter = inter.rename(columns={"userId": "user_id", "movieId": "item_id"})
    movies = read_delimited(raw / "movies.csv", sep=",", header=True, dtypes={"movieId": "int"})
    split = movies["title"].fillna("").map(split_title_year)
    items_out = pd.DataFrame({
        "item_id": movies["movieId"],
        "title": [s[0] for s in split],
        "year": [s[1] for s in split],
        "genres": movies["genres"].fillna("").map(
            lambda g: [x for x in g.split("|") if x and x != "(no genres listed)"]),
    })
    links = raw / "links.csv"
    if links.exists():
        ln = read_delimited(links, sep=",", header=True, dtypes={"movieId": "int"})
        items_out = items_out.merge(
            ln.rename(columns={"movieId": "item_id", "imdbId": "imdb_id", "tmdbId": "tmdb_id"})[
                ["item_id", "imdb_id", "tmdb_id"]], on="item_id", how="left")
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items_out, users
