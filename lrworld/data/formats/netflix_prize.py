"""Netflix Prize as published (`nf_prize_dataset.tar.gz`): `training_set/mv_<7 digits>.txt`, one
movie per file (its `movie_id:` line, then `user,rating,YYYY-MM-DD` lines), and
`movie_titles.txt` (either titles form, see `lrworld.data.netflix`).

The files to read are named in advance (every one is a declared input): movies 1..`movies`
(17,770 in the published set).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from lrworld.data import netflix
from lrworld.data.contract import DataError
from lrworld.data.formats import ON_BAD_LINE, encoding, register

MOVIES = {"type": "integer", "minimum": 1, "maximum": 100000, "default": 17770,
          "description": "number of training_set/mv_*.txt files (movies 1..n)"}
TITLES = {"type": "string", "default": "movie_titles.txt", "description": "the movie titles file"}


def movie_files(cfg: dict) -> list[str]:
    return [f"training_set/mv_{i:07d}.txt" for i in range(1, cfg["movies"] + 1)]


@register("netflix-prize",
          licence="Netflix Prize data: non-commercial research terms of the Netflix Prize rules",
          paper_dataset="netflix", files=lambda cfg: movie_files(cfg) + [cfg["titles"]],
          options={"movies": MOVIES, "titles": TITLES, "on_bad_line": ON_BAD_LINE, "encoding": encoding("latin-1")})
def load(raw: Path, cfg: dict):
    """Netflix Prize original layout (training_set/mv_*.txt + movie_titles.txt)."""
    on_bad, enc, skipped = cfg["on_bad_line"], cfg["encoding"], Counter()
    frames = []
    for i, name in enumerate(movie_files(cfg), 1):
        block = netflix.read_blocks(raw / name, on_bad, skipped, enc)
        other = set(block["item_id"]) - {str(i)}
        if other:  # a file's own id is its only movie: a renamed or merged file would mislabel ratings
            raise DataError(f"{raw / name}: holds ratings of movie {sorted(other)[0]}, expected only movie {i}")
        frames.append(block)
    inter = pd.concat(frames, ignore_index=True)
    items, form = netflix.read_titles(raw / cfg["titles"], on_bad, skipped, enc)
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items, users, {"bad_lines_skipped": dict(skipped), **form}
