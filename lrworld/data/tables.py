"""Reading delimited text files with errors that name the file and the row.

pandas' own errors point deep into its parser; researchers need to know which line of which file
is wrong, so parsing and type checks are wrapped here once for every loader.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError

_CASTS = {"int": "int64", "float": "float64"}


def read_delimited(path: str | Path, sep: str, names: list[str] | None = None, header: bool = False,
                   encoding: str = "utf-8", dtypes: dict[str, str] | None = None) -> pd.DataFrame:
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: file not found")
    try:
        df = pd.read_csv(path, sep=sep, header=0 if header else None, names=None if header else names,
                         encoding=encoding, dtype=str, keep_default_na=False, na_values=[""],
                         quoting=csv.QUOTE_MINIMAL if sep == "," else csv.QUOTE_NONE,
                         engine="python" if len(sep) > 1 else "c")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not readable as {encoding} (byte offset {exc.start}); "
                        f"set the dataset's encoding in config") from None
    except (pd.errors.ParserError, csv.Error) as exc:
        raise DataError(f"{path}: malformed delimited file ({exc})") from None
    if header:
        # RecBole atomic headers carry types ("user_id:token"); the name is the part before ':'.
        df.columns = [str(c).split(":", 1)[0].strip() for c in df.columns]
    elif names is not None and df.shape[1] != len(names):
        raise DataError(f"{path}: expected {len(names)} columns separated by {sep!r}, found {df.shape[1]}")
    for col, kind in (dtypes or {}).items():
        if col not in df.columns:
            raise DataError(f"{path}: missing column {col!r}; found {list(df.columns)}")
        values = pd.to_numeric(df[col], errors="coerce")
        bad = values.isna() & df[col].notna() | df[col].isna()
        if kind == "int":
            bad |= values.notna() & (values != values.round())
        if bad.any():
            row = int(bad.idxmax())
            line = row + (2 if header else 1)
            raise DataError(f"{path}: line {line}: column {col!r} should be {kind}, got {df[col].iloc[row]!r}"
                            f" (wrong delimiter or encoding?)")
        df[col] = values.astype(_CASTS[kind])
    return df
