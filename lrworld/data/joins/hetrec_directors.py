"""HetRec 2011 MovieLens-2k `movie_directors.dat` (movieID, directorID, directorName; the ML-10M id
space, which ML-25M and ml-latest share; about 10k movies, so ML-25M's newer films get none)."""

from __future__ import annotations

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.joins import fill, register
from lrworld.data.tables import read_delimited


@register("hetrec_directors", keys=("hetrec_directors",), formats=("ml-latest",), fields=("director",),
          check="that the dataset uses MovieLens ids (ML-10M/ML-25M/ml-latest); HetRec covers movies up to 2008")
def join(items: pd.DataFrame, inter, files: dict, opts: dict):
    (path,) = files["hetrec_directors"]
    df = read_delimited(path, sep="\t", header=True, encoding="latin-1", dtypes={"movieID": "id"})
    if "directorName" not in df.columns:
        raise DataError(f"{path}: missing column 'directorName'; found {list(df.columns)}")
    grouped = df.groupby("movieID")["directorName"].agg(lambda s: [x for x in s if isinstance(x, str)])
    out = items.copy()
    ids = out["item_id"].astype(str)
    out["director"] = [fill(cur, grouped.get(i, [])) for i, cur in zip(ids, out["director"])]
    return out, {"source": str(path), "rows": len(df), "aligned": int(ids.isin(grouped.index).sum())}
