"""Netflix Prize, the Kaggle repack: `combined_data_{1..4}.txt` (rating blocks of many movies) and
`movie_titles.csv` (either titles form, see `lrworld.data.netflix`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from lrworld.data import netflix
from lrworld.data.formats import ON_BAD_LINE, encoding, register

PARTS = {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": [1, 2, 3, 4]},
         "default": [1, 2, 3, 4], "description": "which combined_data_<n>.txt files to read"}
TITLES = {"type": "string", "default": "movie_titles.csv", "description": "the movie titles file"}


@register("netflix",
          licence="Netflix Prize data: non-commercial research terms of the Netflix Prize rules",
          paper_dataset="netflix", files=lambda cfg: [f"combined_data_{p}.txt" for p in cfg["parts"]] + [cfg["titles"]],
          options={"parts": PARTS, "titles": TITLES, "on_bad_line": ON_BAD_LINE, "encoding": encoding("latin-1")})
def load(raw: Path, cfg: dict):
    """Netflix Prize as repacked on Kaggle (combined_data_<n>.txt + movie_titles.csv)."""
    on_bad, enc, skipped = cfg["on_bad_line"], cfg["encoding"], Counter()
    inter = pd.concat([netflix.read_blocks(raw / f"combined_data_{p}.txt", on_bad, skipped, enc)
                       for p in cfg["parts"]], ignore_index=True)
    items, form = netflix.read_titles(raw / cfg["titles"], on_bad, skipped, enc)
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items, users, {"bad_lines_skipped": dict(skipped), **form}
