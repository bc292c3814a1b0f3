"""The Netflix Prize files both layouts share: rating blocks (`movie_id:` then
`user,rating,YYYY-MM-DD` lines) and the movie titles file in its two published forms.

Titles, original form (`movie_titles.txt` in the Prize archive, `movie_titles.csv` in the Kaggle
repack): Latin-1, `movie_id,year|NULL,title`, titles with unquoted commas, so each line is split on
its first two commas only. Spreadsheet-resaved form (common in public copies): every row padded to
the same number of fields (6 for the full file) with CSV quoting, because the spreadsheet split
titles at their commas; the title is the fields after the year joined by commas again, padding
dropped. The form is detected from the file (every row with one field count above 3).
"""

from __future__ import annotations

import csv
import logging
import re
from collections import Counter
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError, check_unique
from lrworld.data.textio import encoding_error, has_utf8_bom, open_text, require

_DATE = r"\d{4}-\d{2}-\d{2}"
_MON = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
# What a spreadsheet shows (and a CSV save keeps) after taking a title for a date or a number:
# "September 11" / "9/11" -> 11-Sep, "September 2011" -> Sep-11, "9/11/2001" -> 11-Sep-01 or
# 9/11/2001, a long digit string -> 1.23E+15. No real title in the Prize file has these forms.
SPREADSHEET_DAMAGE = re.compile(rf"\d{{1,2}}-{_MON}(?:-\d{{2,4}})?|{_MON}-\d{{2,4}}|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}"
                                rf"|\d(?:\.\d+)?E\+\d{{1,3}}")
log = logging.getLogger(__name__)


def bad_line(path: Path, line: int, what: str, on_bad: str, skipped: Counter) -> None:
    if on_bad == "skip":
        skipped[path.name] += 1
        return
    raise DataError(f"{path}: line {line}: {what} (set on_bad_line: skip to count and skip such lines)")


def read_blocks(path: str | Path, on_bad: str, skipped: Counter, encoding: str = "latin-1") -> pd.DataFrame:
    """One file of rating blocks -> user_id, item_id, rating, timestamp (the date at 00:00 UTC)."""
    path = require(path)
    try:
        # A 4th column catches lines with one field too many; only a line with 5+ fields is a parser error.
        with open_text(path, encoding) as fh:
            df = pd.read_csv(fh, header=None, names=["a", "b", "c", "d"], dtype=str, sep=",",
                             quoting=csv.QUOTE_NONE, skip_blank_lines=False, keep_default_na=False,
                             na_values=[""])
    except pd.errors.ParserError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise DataError(f"{path}: line {m.group(1) if m else '?'}: malformed ({exc})") from None
    except UnicodeError as exc:
        raise encoding_error(path, encoding, exc) from None
    df.index = pd.RangeIndex(1, len(df) + 1)  # line numbers
    df = df[~df.isna().all(axis=1)]
    header = df["a"].str.fullmatch(r"\d+:", na=False) & df[["b", "c", "d"]].isna().all(axis=1)
    movie = df["a"].where(header).str[:-1].ffill()
    data = df[~header]
    ok = (data["a"].str.fullmatch(r"\d+", na=False) & data["b"].str.fullmatch(r"[1-5]", na=False)
          & data["c"].str.fullmatch(_DATE, na=False) & data["d"].isna() & movie[~header].notna())
    for line in data.index[~ok]:
        row = data.loc[line]
        what = "rating line before any 'movie_id:' line" if pd.isna(movie.get(line)) else \
            f"expected 'user_id,rating(1-5),YYYY-MM-DD', got {','.join(x for x in row if isinstance(x, str))!r}"
        bad_line(path, int(line), what, on_bad, skipped)
    data = data[ok]
    ts = pd.to_datetime(data["c"], format="%Y-%m-%d", errors="coerce")
    if ts.isna().any():
        line = int(ts.index[ts.isna()][0])
        bad_line(path, line, f"not a date: {data.loc[line, 'c']!r}", on_bad, skipped)
        data, ts = data[ts.notna()], ts[ts.notna()]
    return pd.DataFrame({
        "user_id": data["a"].to_numpy(), "item_id": movie[data.index].to_numpy(),
        "rating": data["b"].astype("float64").to_numpy(),
        # pandas 3 parses at second or microsecond resolution: divide by a Timedelta, not by 10**9
        "timestamp": ((ts - pd.Timestamp("1970-01-01")) // pd.Timedelta(seconds=1)).astype("int64").to_numpy(),
    })


def _year(v: str) -> int | None | str:
    v = v.strip()
    if v in ("NULL", ""):
        return None
    return int(v) if v.isdigit() else "bad"


def read_titles(path: str | Path, on_bad: str = "error", skipped: Counter | None = None,
                encoding: str = "latin-1") -> tuple[pd.DataFrame, dict]:
    """movie_titles in either form -> (item_id, year, title) and what was detected."""
    path = require(path)
    skipped = Counter() if skipped is None else skipped
    try:
        with open_text(path, encoding) as fh:
            lines = [(n, line.rstrip("\r\n")) for n, line in enumerate(fh, 1) if line.strip()]
    except UnicodeError as exc:
        raise encoding_error(path, encoding, exc) from None
    parsed = [(n, next(csv.reader([line]))) for n, line in lines]
    widths = Counter(len(f) for _, f in parsed)
    form = "spreadsheet" if len(widths) == 1 and next(iter(widths)) > 3 else "original"
    rows, header = [], False
    for (n, line), (_, fields) in zip(lines, parsed):
        if form == "original":
            parts = line.split(",", 2)
        else:
            parts = fields[:2] + [",".join(fields[2:]).rstrip(",")]
        if n == lines[0][0] and len(parts) == 3 and not parts[0].strip().isdigit():
            header = True  # a resaved copy may carry a header row (e.g. Movie_ID,Year,Name)
            continue
        year = _year(parts[1]) if len(parts) == 3 else "bad"
        if len(parts) != 3 or not parts[0].strip().isdigit() or year == "bad" or not parts[2].strip():
            bad_line(path, n, f"expected 'movie_id,year|NULL,title', got {line!r}", on_bad, skipped)
            continue
        rows.append((parts[0].strip(), year, parts[2].strip()))
    titles = pd.DataFrame(rows, columns=["item_id", "year", "title"])
    check_unique(titles, "item_id", path)
    # a damaged title names no work: two films that both read 11-Sep are never merged as one
    titles["title_damaged"] = [bool(SPREADSHEET_DAMAGE.fullmatch(t)) for _, _, t in rows]
    damaged = [f"item {i} ({y if y is not None else 'NULL'}): {t!r}" for i, y, t in rows
               if SPREADSHEET_DAMAGE.fullmatch(t)]
    if damaged:
        # kept as written (the original title cannot be known), but never silently
        log.warning("%s: %d titles look turned into dates or numbers by a spreadsheet (e.g. %s); take the "
                    "titles from the original movie_titles file", path, len(damaged), damaged[0])
    return titles, {"titles_form": form, "titles_header_skipped": header, "titles_utf8_bom": has_utf8_bom(path),
                    "titles_like_spreadsheet_dates": {"count": len(damaged), "examples": damaged[:5]}}
