"""IMDb's non-commercial datasets in their documented layout
(https://developer.imdb.com/non-commercial-datasets/): gzip TSV, UTF-8, a header row, `\\N` for
null, comma-joined nconst lists, title.akas `types` joined by 0x02. The rows are ML-100K films
(their real tconsts and credits); the layout was checked against published heads of the real
files (tt0000001 Carmencita, nm0000001 Fred Astaire)."""

import gzip

N = "\\N"
BASICS = [
    ("tt0116213", "movie", "Eraser", "Eraser", "0", "1996", N, "115", "Action,Drama,Mystery"),
    ("tt0092099", "movie", "Top Gun", "Top Gun", "0", "1986", N, "110", "Action,Drama"),
    ("tt0120751", "movie", "Mighty Joe Young", "Mighty Joe Young", "0", "1998", N, "114", "Action,Adventure,Drama"),
    ("tt0101026", "movie", "Tie Me Up! Tie Me Down!", "¡Átame!", "0", "1989", N, "111", "Comedy,Crime,Drama"),
    ("tt0115736", "movie", "Bound", "Bound", "0", "1996", N, "108", "Crime,Romance,Thriller"),
]
CREW = [("tt0116213", "nm0751102", "nm0700880,nm0338540"), ("tt0092099", "nm0001716", N),
        ("tt0120751", "nm0880618", N), ("tt0101026", "nm0000818", "nm0000818"),
        ("tt0115736", "nm0905154,nm0905152", "nm0905152,nm0905154")]
PRINCIPALS = [("tt0116213", "1", "nm0000216", "actor", N, '["John Kruger"]'),
              ("tt0116213", "2", "nm0001820", "actress", N, '["Lee Cullen"]'),
              ("tt0116213", "3", "nm0751102", "director", N, N),
              ("tt0092099", "1", "nm0000129", "actor", N, '["Maverick"]'),
              ("tt0115736", "1", "nm0000221", "actress", N, '["Corky"]')]
NAMES = [("nm0751102", "Chuck Russell", "1958", N, "producer,director,writer", "tt0116213"),
         ("nm0001716", "Tony Scott", "1944", "2012", "producer,director", "tt0092099"),
         ("nm0880618", "Ron Underwood", "1953", N, "director,producer", "tt0120751"),
         ("nm0000818", "Pedro Almodóvar", "1949", N, "writer,director,producer", "tt0101026"),
         ("nm0905154", "Lana Wachowski", "1965", N, "writer,director,producer", "tt0133093"),
         ("nm0905152", "Lilly Wachowski", "1967", N, "writer,director,producer", "tt0133093"),
         ("nm0000216", "Arnold Schwarzenegger", "1947", N, "actor,producer", "tt0088247"),
         ("nm0001820", "Vanessa Williams", "1963", N, "actress,soundtrack", "tt0116213"),
         ("nm0000129", "Tom Cruise", "1962", N, "actor,producer", "tt0092099"),
         ("nm0000221", "Jennifer Tilly", "1958", N, "actress", "tt0115736")]
AKAS = [("tt0120751", "1", "Mighty Joe Young", "US", N, "imdbDisplay", N, "0"),
        ("tt0120751", "2", "Mighty Joe", "AU", N, "imdbDisplay\x02working", N, "0"),
        ("tt0101026", "1", "¡Átame!", N, N, "original", N, "1"),
        ("tt0101026", "2", "Tie Me Up! Tie Me Down!", "US", N, "imdbDisplay", N, "0")]
HEADERS = {
    "title.basics": "tconst\ttitleType\tprimaryTitle\toriginalTitle\tisAdult\tstartYear\tendYear\truntimeMinutes\tgenres",
    "title.crew": "tconst\tdirectors\twriters",
    "title.principals": "tconst\tordering\tnconst\tcategory\tjob\tcharacters",
    "name.basics": "nconst\tprimaryName\tbirthYear\tdeathYear\tprimaryProfession\tknownForTitles",
    "title.akas": "titleId\tordering\ttitle\tregion\tlanguage\ttypes\tattributes\tisOriginalTitle",
}
ROWS = {"title.basics": BASICS, "title.crew": CREW, "title.principals": PRINCIPALS, "name.basics": NAMES,
        "title.akas": AKAS}
KEYS = {"imdb_basics": "title.basics", "imdb_crew": "title.crew", "imdb_names": "name.basics",
        "imdb_principals": "title.principals", "imdb_akas": "title.akas"}


def write_imdb(folder, extra: dict | None = None) -> dict:
    """{metadata key: [path]} of the five files written under folder; `extra`: kind -> more rows."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for key, kind in KEYS.items():
        path = folder / f"{kind}.tsv.gz"
        text = HEADERS[kind] + "\n" + "".join("\t".join(r) + "\n" for r in ROWS[kind] + (extra or {}).get(kind, []))
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        out[key] = [path]
    return out
