"""Reading delimited text files with errors that name the file and the row.

pandas' own errors point deep into its parser; researchers need to know which line of which file
is wrong, so parsing and type checks are wrapped here once for every loader.

Column kinds: `id` keeps the text (digits only, so a wrong delimiter is caught) and never becomes a
number: an id above 2^63 stays itself instead of wrapping around; `int` and `float` are cast.
"""

from __future__ import annotations

import csv
import re
import warnings
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.textio import encoding_error, open_text

_CASTS = {"int": "int64", "float": "float64"}
_EXTRA = "__extra_field__"
_LINE = re.compile(r"line (\d+), saw (\d+)")


def read_delimited(path: str | Path, sep: str, names: list[str] | None = None, header: bool = False,
                   encoding: str = "utf-8", dtypes: dict[str, str] | None = None) -> pd.DataFrame:
    path = Path(path)
    # One sentinel column more than the file should have: a row with an extra field fills it
    # (pandas would otherwise shift every column, or read the first field as an index).
    cols = None if header else (list(names) + [_EXTRA] if names is not None else None)
    try:
        with open_text(path, encoding) as fh, warnings.catch_warnings():
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            df = pd.read_csv(fh, sep=sep, header=0 if header else None, names=cols, index_col=False,
                             dtype=str, keep_default_na=False, na_values=[""],
                             quoting=csv.QUOTE_MINIMAL if sep == "," else csv.QUOTE_NONE,
                             engine="python" if len(sep) > 1 else "c")
    except UnicodeError as exc:
        raise encoding_error(path, encoding, exc) from None
    except (pd.errors.ParserError, csv.Error) as exc:
        m = _LINE.search(str(exc))
        if m:
            want = len(names) if names is not None and not header else len(df_header(path, sep, encoding))
            raise DataError(f"{path}: line {m.group(1)}: {m.group(2)} fields separated by {sep!r}, expected "
                            f"{want}") from None
        raise DataError(f"{path}: malformed delimited file ({exc})") from None
    if header:
        # RecBole atomic headers carry types ("user_id:token"); the name is the part before ':'.
        df.columns = [str(c).split(":", 1)[0].strip() for c in df.columns]
    elif names is not None:
        extra = df[_EXTRA].notna()
        if extra.any():
            line = int(extra.to_numpy().argmax()) + 1
            raise DataError(f"{path}: line {line}: more than {len(names)} fields separated by {sep!r} "
                            f"(expected {', '.join(names)})")
        df = df.drop(columns=[_EXTRA])
    for col, kind in (dtypes or {}).items():
        if col not in df.columns:
            raise DataError(f"{path}: missing column {col!r}; found {list(df.columns)}")
        df[col] = _typed(df, col, kind, path, header)
    return df


def df_header(path: Path, sep: str, encoding: str) -> list[str]:
    with open_text(path, encoding) as fh:
        return fh.readline().rstrip("\r\n").split(sep)


def _typed(df: pd.DataFrame, col: str, kind: str, path: Path, header: bool) -> pd.Series:
    raw = df[col]
    if kind == "id":
        text = raw.str.strip()
        bad = ~text.str.fullmatch(r"\d+", na=False)
        what = "an integer id"
        values = text
    else:
        values = pd.to_numeric(raw, errors="coerce")
        bad = values.isna() & raw.notna() | raw.isna()
        if kind == "int":
            bad |= values.notna() & (values != values.round())
        what = kind
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise DataError(f"{path}: line {row + (2 if header else 1)}: column {col!r} should be {what}, got "
                        f"{raw.iloc[row]!r} (wrong delimiter or encoding?)")
    return values if kind == "id" else values.astype(_CASTS[kind])
