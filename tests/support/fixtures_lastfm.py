"""HetRec 2011 Last.fm `user_taggedartists.dat` in its exact format (TSV with header
`userID artistID tagID day month year`), which is not redistributed on these machines.

Tags are drawn for artists of a real `artists.dat`, from the tag ids of a real `tags.dat`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def write_user_taggedartists(path, artists_dat, tags_dat, seed: int = 0, n_tags: int = 40,
                             artist_ids: list[int] | None = None) -> dict[int, int]:
    """Write the file; return the expected top tag id per artist (a clear majority each)."""
    rng = np.random.default_rng(seed)
    artists = pd.read_csv(artists_dat, sep="\t", usecols=["id"])["id"].tolist()
    tags = pd.read_csv(tags_dat, sep="\t", encoding="latin-1")["tagID"].tolist()
    pool = [int(t) for t in rng.choice(tags, size=n_tags, replace=False)]
    ids = artist_ids if artist_ids is not None else artists
    rows, top = [], {}
    for a in ids:
        main, other = (int(x) for x in rng.choice(pool, size=2, replace=False))
        top[int(a)] = main
        users = [int(u) for u in rng.choice(np.arange(2, 2100), size=4, replace=False)]
        for u in users[:3]:
            rows.append((u, a, main))
        rows.append((users[3], a, other))
    with open(Path(path), "w", encoding="utf-8", newline="") as fh:
        fh.write("userID\tartistID\ttagID\tday\tmonth\tyear\r\n")
        for u, a, t in rows:
            fh.write(f"{u}\t{a}\t{t}\t{int(rng.integers(1, 29))}\t{int(rng.integers(1, 13))}\t"
                     f"{int(rng.integers(2005, 2011))}\r\n")
    return top
