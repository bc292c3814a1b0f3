"""Netflix Prize: `combined_data_{1..4}.txt` (blocks of `movie_id:` then `user,rating,YYYY-MM-DD`
lines) and `movie_titles.csv` (Latin-1, `movie_id,year,title` with commas inside titles and
`NULL` years), aligned by title + year to a metadata CSV (director, cast, genres, description,
poster URL; e.g. Kaggle's netflix_titles.csv with `listed_in` and `release_year`).
"""

from __future__ import annotations

import csv
import html
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pandas as pd

from lrworld.data.contract import DataError
from lrworld.data.tables import read_delimited

PARTS = (1, 2, 3, 4)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def required(cfg: dict) -> list[str]:
    return [f"combined_data_{p}.txt" for p in cfg.get("parts", PARTS)] + ["movie_titles.csv"]


def _bad(path: Path, line: int, what: str, on_bad: str, skipped: Counter) -> None:
    if on_bad == "skip":
        skipped[path.name] += 1
        return
    raise DataError(f"{path}: line {line}: {what} (set on_bad_line: skip to count and skip such lines)")


def read_combined(path: str | Path, on_bad: str = "error", skipped: Counter | None = None) -> pd.DataFrame:
    """One combined_data file -> user_id, item_id, rating, timestamp (the date at 00:00 UTC)."""
    path = Path(path)
    skipped = Counter() if skipped is None else skipped
    if not path.exists():
        raise DataError(f"{path}: file not found")
    try:
        # A 4th column catches lines with one field too many; only a line with 5+ fields is a parser error.
        df = pd.read_csv(path, header=None, names=["a", "b", "c", "d"], dtype=str, sep=",", quoting=csv.QUOTE_NONE,
                         skip_blank_lines=False, keep_default_na=False, na_values=[""], encoding="latin-1")
    except pd.errors.ParserError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise DataError(f"{path}: line {m.group(1) if m else '?'}: malformed ({exc})") from None
    df.index = pd.RangeIndex(1, len(df) + 1)  # line numbers
    blank = df.isna().all(axis=1)
    df = df[~blank]
    header = df["a"].str.fullmatch(r"\d+:", na=False) & df[["b", "c", "d"]].isna().all(axis=1)
    movie = df["a"].where(header).str[:-1].ffill()
    data = df[~header]
    ok = (data["a"].str.fullmatch(r"\d+", na=False) & data["b"].str.fullmatch(r"[1-5]", na=False)
          & data["c"].str.fullmatch(_DATE.pattern, na=False) & data["d"].isna() & movie[~header].notna())
    for line in data.index[~ok]:
        row = data.loc[line]
        what = "rating line before any 'movie_id:' line" if pd.isna(movie.get(line)) else \
            f"expected 'user_id,rating(1-5),YYYY-MM-DD', got {','.join(x for x in row if isinstance(x, str))!r}"
        _bad(path, int(line), what, on_bad, skipped)
    data = data[ok]
    ts = pd.to_datetime(data["c"], format="%Y-%m-%d", errors="coerce")
    if ts.isna().any():
        line = int(ts.index[ts.isna()][0])
        _bad(path, line, f"not a date: {data.loc[line, 'c']!r}", on_bad, skipped)
        data, ts = data[ts.notna()], ts[ts.notna()]
    return pd.DataFrame({
        "user_id": data["a"].to_numpy(), "item_id": movie[data.index].to_numpy(),
        "rating": data["b"].astype("float64").to_numpy(),
        # pandas 3 parses at second or microsecond resolution: divide by a Timedelta, not by 10**9
        "timestamp": ((ts - pd.Timestamp("1970-01-01")) // pd.Timedelta(seconds=1)).astype("int64").to_numpy(),
    })


def read_titles(path: str | Path, on_bad: str = "error", skipped: Counter | None = None) -> pd.DataFrame:
    """movie_titles.csv: split on the first two commas only (titles contain commas)."""
    path = Path(path)
    skipped = Counter() if skipped is None else skipped
    if not path.exists():
        raise DataError(f"{path}: file not found")
    rows = []
    with open(path, encoding="latin-1", newline="") as fh:
        for line_no, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            parts = line.split(",", 2)
            if len(parts) != 3 or not parts[0].isdigit() or not (parts[1].isdigit() or parts[1] == "NULL"):
                _bad(path, line_no, f"expected 'movie_id,year|NULL,title', got {line!r}", on_bad, skipped)
                continue
            rows.append((parts[0], int(parts[1]) if parts[1] != "NULL" else None, parts[2].strip()))
    return pd.DataFrame(rows, columns=["item_id", "year", "title"])


def load_netflix(raw_dir: str | Path, cfg: dict):
    raw = Path(raw_dir)
    on_bad = cfg.get("on_bad_line", "error")
    skipped = Counter()
    inter = pd.concat([read_combined(raw / f"combined_data_{p}.txt", on_bad, skipped)
                       for p in cfg.get("parts", PARTS)], ignore_index=True)
    items = read_titles(raw / "movie_titles.csv", on_bad, skipped)
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items, users, {"bad_lines_skipped": dict(skipped)}


# ---- alignment with a metadata CSV by title + year ----

_ALIASES = {
    "title": ["title", "name", "movie_title"],
    "year": ["release_year", "year", "startYear"],
    "director": ["director", "directors"],
    "cast": ["cast", "actors", "stars"],
    "genres": ["listed_in", "genres", "genre"],
    "plot": ["description", "plot", "overview", "logline"],
    "poster_url": ["poster_url", "poster", "Poster", "poster_link", "Poster_Link"],
    "type": ["type"],
}
_ARTICLE = re.compile(r"^(.*), (the|a|an)$", re.I)


def norm_title(t: str) -> str:
    t = html.unescape(str(t)).strip()
    m = _ARTICLE.match(t)
    if m:
        t = f"{m.group(2)} {m.group(1)}"
    t = unicodedata.normalize("NFKD", t).encode("ascii", "ignore").decode().lower().replace("&", " and ")
    t = re.sub(r"[^a-z0-9]+", " ", t).strip()
    return re.sub(r"^(the|a|an) ", "", t)


def _split_list(v) -> list[str]:
    if not isinstance(v, str):
        return []
    return [x.strip() for x in re.split(r"[,|]", v) if x.strip()]


def join_netflix_metadata(items: pd.DataFrame, path: str | Path, year_tolerance: int = 1,
                          inter: pd.DataFrame | None = None) -> tuple[pd.DataFrame, dict]:
    meta = read_delimited(path, sep=",", header=True)
    cols = {}
    for key, names in _ALIASES.items():
        hit = next((n for n in names if n in meta.columns), None)
        if hit:
            cols[key] = hit
    if "title" not in cols or "year" not in cols:
        raise DataError(f"{path}: needs a title column ({_ALIASES['title']}) and a year column "
                        f"({_ALIASES['year']}); found {list(meta.columns)}")
    if "type" in cols:  # Kaggle's file mixes TV shows in; the Prize's titles are matched to movies first
        meta = meta.assign(_tv=meta[cols["type"]].fillna("").str.lower().str.contains("tv"))
    else:
        meta = meta.assign(_tv=False)
    meta = meta.assign(_norm=meta[cols["title"]].fillna("").map(norm_title),
                       _year=pd.to_numeric(meta[cols["year"]], errors="coerce"))
    by_title: dict[str, list[int]] = {}
    for i, n in zip(meta.index, meta["_norm"]):
        if n:
            by_title.setdefault(n, []).append(i)
    rows, ambiguous, no_year = [], 0, 0
    for item_id, title, year in zip(items["item_id"], items["title"], items["year"]):
        if pd.isna(year):
            no_year += 1
            continue
        cands = [i for i in by_title.get(norm_title(title), [])
                 if not pd.isna(meta.at[i, "_year"]) and abs(int(meta.at[i, "_year"]) - int(year)) <= year_tolerance]
        if not cands:
            continue
        cands.sort(key=lambda i: (abs(int(meta.at[i, "_year"]) - int(year)), bool(meta.at[i, "_tv"]), i))
        if len(cands) > 1 and abs(int(meta.at[cands[0], "_year"]) - int(year)) == \
                abs(int(meta.at[cands[1], "_year"]) - int(year)) and meta.at[cands[0], "_tv"] == meta.at[cands[1], "_tv"]:
            ambiguous += 1  # two equally good rows: neither is trusted
            continue
        r = meta.loc[cands[0]]
        rows.append({
            "item_id": str(item_id),
            "director": _split_list(r.get(cols.get("director"))) if "director" in cols else [],
            "cast": _split_list(r.get(cols.get("cast"))) if "cast" in cols else [],
            "genres": _split_list(r.get(cols.get("genres"))) if "genres" in cols else [],
            "plot": r.get(cols["plot"]) if "plot" in cols and isinstance(r.get(cols["plot"]), str) else None,
            "poster_url": r.get(cols["poster_url"]) if "poster_url" in cols and
            isinstance(r.get(cols["poster_url"]), str) else None,
        })
    joined = pd.DataFrame(rows, columns=["item_id", "director", "cast", "genres", "plot", "poster_url"])
    out = items.drop(columns=[c for c in joined.columns if c != "item_id" and c in items.columns])
    out = out.merge(joined, on="item_id", how="left")
    report = {"source": str(path), "metadata_rows": int(len(meta)), "movies": int(len(items)),
              "aligned": int(len(joined)), "alignment_rate": round(len(joined) / max(len(items), 1), 4),
              "ambiguous_dropped": ambiguous, "movies_without_year": no_year, "year_tolerance": year_tolerance,
              "columns_used": cols}
    if inter is not None and len(inter):
        report["ratings_alignment_rate"] = round(float(inter["item_id"].isin(set(joined["item_id"])).mean()), 4)
    return out, report
