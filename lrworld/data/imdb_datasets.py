"""IMDb's non-commercial datasets (https://developer.imdb.com/non-commercial-datasets/) as read by
the `imdb_datasets` metadata join: `title.basics`, `title.akas`, `title.crew`, `title.principals`
and `name.basics`, each a gzip (or plain) UTF-8 TSV with a header row, `\\N` for null, comma-joined
lists (`genres`, `directors`, `knownForTitles`) and, in `title.akas`, the `types` array joined by the
0x02 byte.

The files are large (title.principals holds every credit of every title): each is streamed once
and only the rows of the wanted titles (and then people) are kept."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lrworld.data.contract import DataError
from lrworld.data.textio import encoding_error, open_text

NULL = "\\N"
# the columns each file must have (the documented header; later columns are ignored)
COLUMNS = {
    "title.basics": ("tconst", "titleType", "primaryTitle", "originalTitle", "startYear", "genres"),
    "title.akas": ("titleId", "title", "types", "isOriginalTitle"),
    "title.crew": ("tconst", "directors"),
    "title.principals": ("tconst", "ordering", "nconst", "category"),
    "name.basics": ("nconst", "primaryName"),
}
CAST_CATEGORIES = ("actor", "actress", "self")


@dataclass
class Title:
    tconst: str
    title_type: str | None = None
    primary: str | None = None
    original: str | None = None
    year: int | None = None
    genres: list[str] = field(default_factory=list)
    directors: list[str] = field(default_factory=list)  # nconst, in the file's order
    cast: list[str] = field(default_factory=list)  # nconst, by principals' ordering
    akas: list[str] = field(default_factory=list)

    def titles(self) -> list[str]:
        """Every title IMDb gives the film: primary, original and each aka."""
        return list(dict.fromkeys(t for t in [self.primary, self.original, *self.akas] if t))


def tconst(number: int) -> str:
    """110912 -> 'tt0110912' (IMDb pads to at least seven digits)."""
    return f"tt{int(number):07d}"


def _value(v: str) -> str | None:
    return None if v == NULL or v == "" else v


def rows(path: Path, kind: str, keep=None):
    """{column: value or None} per data row of one file whose first column is in `keep` (all rows
    without it); a header without the documented columns is one line naming the file."""
    path = Path(path)
    want = COLUMNS[kind]
    with open_text(path, "utf-8") as fh:
        try:
            header = fh.readline().rstrip("\r\n").split("\t")
            missing = [c for c in want if c not in header]
            if missing:
                raise DataError(f"{path}: not IMDb's {kind} file: its header lacks {missing} (found {header[:6]}); "
                                f"https://developer.imdb.com/non-commercial-datasets/")
            at = [header.index(c) for c in want]
            for lineno, line in enumerate(fh, 2):
                parts = line.rstrip("\r\n").split("\t")
                if keep is not None and parts[0] not in keep:
                    continue
                if len(parts) < len(header):
                    raise DataError(f"{path}: line {lineno}: {len(parts)} tab-separated fields, expected "
                                    f"{len(header)} ({', '.join(header)})")
                yield {c: _value(parts[i]) for c, i in zip(want, at)}
        except UnicodeError as exc:
            raise encoding_error(path, "utf-8", exc) from None


def _int(v) -> int | None:
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


def read_titles(files: dict[str, Path], wanted: set[str]) -> dict[str, Title]:
    """tconst -> Title of the wanted titles found in title.basics, with their crew, cast and akas
    from the files given."""
    out: dict[str, Title] = {}
    for r in rows(files["title.basics"], "title.basics", wanted):
        out[r["tconst"]] = Title(r["tconst"], r["titleType"], r["primaryTitle"], r["originalTitle"],
                                 _int(r["startYear"]), (r["genres"] or "").split(",") if r["genres"] else [])
    if "title.crew" in files:
        for r in rows(files["title.crew"], "title.crew", set(out)):
            out[r["tconst"]].directors = [x for x in (r["directors"] or "").split(",") if x]
    if "title.principals" in files:
        credits: dict[str, list] = {}
        for r in rows(files["title.principals"], "title.principals", set(out)):
            if r["category"] in CAST_CATEGORIES:
                credits.setdefault(r["tconst"], []).append((_int(r["ordering"]) or 0, r["nconst"]))
        for t, cs in credits.items():
            out[t].cast = list(dict.fromkeys(n for _, n in sorted(cs)))
    if "title.akas" in files:
        for r in rows(files["title.akas"], "title.akas", set(out)):
            if r["title"]:
                out[r["titleId"]].akas.append(r["title"])
    return out


# title types that are films (a Netflix title is never a series' episode)
FILM_TYPES = ("movie", "tvMovie", "video")


def match_titles(files: dict[str, Path], wanted: dict[str, tuple[list[str], int | None]], tolerance: int,
                 key) -> dict[str, set[str]]:
    """item -> the film tconsts whose primary, original or aka title (`key`: the compared form) is one
    of the item's title keys and whose year is within `tolerance` of the item's: for datasets with no
    IMDb id (Netflix), which IMDb film each item is."""
    by_key: dict[str, list[tuple[str, int | None]]] = {}
    for item, (keys, year) in wanted.items():
        for k in keys:
            by_key.setdefault(k, []).append((item, year))
    found: dict[str, set[str]] = {}
    film_year: dict[str, int | None] = {}

    def take(tc: str, title: str | None, year: int | None) -> None:
        for item, y in by_key.get(key(title), ()) if title else ():
            if y is None or year is None or abs(y - year) <= tolerance:
                found.setdefault(item, set()).add(tc)

    for r in rows(files["title.basics"], "title.basics"):
        if r["titleType"] not in FILM_TYPES:
            continue
        year = _int(r["startYear"])
        film_year[r["tconst"]] = year
        take(r["tconst"], r["primaryTitle"], year)
        if r["originalTitle"] != r["primaryTitle"]:
            take(r["tconst"], r["originalTitle"], year)
    if "title.akas" in files:
        for r in rows(files["title.akas"], "title.akas", film_year):
            take(r["titleId"], r["title"], film_year[r["titleId"]])
    return found


def read_names(path: Path, wanted: set[str]) -> dict[str, str]:
    """nconst -> primaryName of the wanted people."""
    return {r["nconst"]: r["primaryName"] for r in rows(path, "name.basics", wanted) if r["primaryName"]}
