"""Fixtures in the exact Netflix Prize layouts: the Kaggle repack (combined_data_<n>.txt,
movie_titles.csv) or the original archive (training_set/mv_<7 digits>.txt, movie_titles.txt); the
titles in Latin-1 with commas inside titles and NULL years, in the original form or resaved by a
spreadsheet (padded to 6 fields, CSV quoting); a Kaggle-style netflix_titles.csv; and LLMRec's
item_attribute.csv / augmented_item_attribute_agg.csv / Netflix_Posters (re-indexed from 0).

    fx = write_netflix(tmp_path, n_users=40, seed=0)
"""

from __future__ import annotations

import csv
from datetime import date, timedelta
from pathlib import Path

import numpy as np

# (title as in movie_titles.csv, year, metadata title, director, cast, listed_in, logline)
BASE_MOVIES = [
    ("Dinosaur Planet", 2003, "Dinosaur Planet", "Pierre de Lespinois", "Christian Slater, Scott Sampson",
     "Documentaries", "A four-episode animated series charting the adventures of four dinosaurs."),
    ("Isle of Man TT 2004 Review", 2004, None, None, None, None, None),
    ("Character", 1997, "Character", "Mike van Diem", "Jan Decleir, Fedja van Huêt, Betty Schuurman",
     "Dramas, International Movies", "A young man is suspected of murdering the bailiff who is his father."),
    ("Paula Abdul's Get Up & Dance", 1994, "Paula Abdul's Get Up & Dance", "Steve Purcell", "Paula Abdul",
     "Music & Musicals", "Paula Abdul teaches dance steps to beginners."),
    ("The Rise and Fall of ECW", 2004, "Rise and Fall of ECW, The", "Kevin Dunn", "Paul Heyman, Tommy Dreamer",
     "Sports Movies", "The story of Extreme Championship Wrestling, from its rise to its collapse."),
    ("Sick, Sad World: The Best of Daria", 2002, "Sick, Sad World: The Best of Daria", "Karen Disher",
     "Tracy Grandstaff, Wendy Hoopes", "Comedies", "Daria's sharpest moments, collected."),
    ("8 Man", 1992, "8 Man", "Yasuhiro Horiuchi", "Kai Shishido, Etsushi Takahashi", "Action & Adventure",
     "A murdered detective returns as a cyborg to fight crime."),
    ("What the #$*! Do We Know!?", 2004, "What the #$*! Do We Know!?", "William Arntz, Betsy Chasse",
     "Marlee Matlin, Elaine Hendrix", "Documentaries", "A deaf photographer discovers quantum physics."),
    ("Amélie", 2001, "Amélie", "Jean-Pierre Jeunet", "Audrey Tautou, Mathieu Kassovitz", "Comedies, Romantic Movies",
     "A shy waitress decides to change the lives of those around her for the better."),
    ("Never Die Alone", 2004, "Never Die Alone", "Ernest R. Dickerson", "DMX, David Arquette",
     "Dramas, Thrillers", "A drug dealer returns home to make amends and is killed."),
    ("Lord of the Rings: The Return of the King", 2003, "Lord of the Rings: The Return of the King",
     "Peter Jackson", "Elijah Wood, Ian McKellen, Viggo Mortensen", "Action & Adventure, Sci-Fi & Fantasy",
     "Gandalf and Aragorn lead the World of Men against Sauron's army."),
    ("Full Frame: Documentary Shorts", None, None, None, None, None, None),
    ("Something's Gotta Give", 2003, "Something's Gotta Give", "Nancy Meyers", "Jack Nicholson, Diane Keaton",
     "Comedies, Romantic Movies", "A swinger on the cusp of sixty falls for his young girlfriend's mother."),
    ("Richard III", 1995, "Richard III", "Richard Loncraine", "Ian McKellen, Annette Bening",
     "Dramas, Classic Movies", "Shakespeare's king, set in a fascist 1930s England."),
]


_GENRES = ["Dramas", "Comedies", "Documentaries", "Thrillers", "Action & Adventure", "Romantic Movies"]


def _generated_movies(n: int, rng: np.random.Generator) -> list[tuple]:
    """`n` more catalogue rows in the same shape, so graph-level fixtures have enough movies for
    10-candidate questions (the hand-written rows keep the real file's quirks)."""
    out = []
    for k in range(n):
        year = int(rng.integers(1950, 2006))
        genres = ", ".join(sorted(set(rng.choice(_GENRES, size=int(rng.integers(1, 3))))))
        out.append((f"Generated Film {k + 1}", year, f"Generated Film {k + 1}", f"Director {k % 17 + 1}",
                    f"Actor {k % 23 + 1}, Actor {(k * 7) % 23 + 1}", genres,
                    f"Generated story number {k + 1}, about {genres.lower()}."))
    return out


def write_titles(path, movies, form: str = "original") -> None:
    """movie_titles as published (`id,year|NULL,title`, CRLF) or as a spreadsheet resaves it: the
    title split at its commas into cells, every row padded to 6 fields, CSV quoting."""
    with open(path, "w", encoding="latin-1", newline="") as fh:
        w = csv.writer(fh, lineterminator="\r\n")
        for i, (title, year, *_rest) in enumerate(movies, 1):
            if form == "original":
                fh.write(f"{i},{year if year else 'NULL'},{title}\r\n")
            else:
                cells = [str(i), str(year) if year else "NULL"] + title.split(",")
                w.writerow(cells + [""] * (6 - len(cells)))


def write_netflix(folder, n_users: int = 40, min_ratings: int = 7, seed: int = 0, malformed_line: int | None = None,
                  parts: int = 2, extra_movies: int = 0, layout: str = "combined", titles_form: str = "original") -> dict:
    rng = np.random.default_rng(seed)
    MOVIES = BASE_MOVIES + _generated_movies(extra_movies, np.random.default_rng(seed + 1))
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    titles = folder / ("movie_titles.csv" if layout == "combined" else "movie_titles.txt")
    write_titles(titles, MOVIES, titles_form)
    per_movie: dict[int, list[str]] = {i: [] for i in range(1, len(MOVIES) + 1)}
    users = [str(int(x)) for x in rng.choice(2_649_429, size=n_users, replace=False) + 1]
    for u in users:
        k = int(rng.integers(min_ratings, min(len(MOVIES), 40)))
        day = date(1999, 11, 11) + timedelta(days=int(rng.integers(0, 1500)))
        for j, m in enumerate(rng.choice(len(MOVIES), size=k, replace=False)):
            d = day + timedelta(days=j * int(rng.integers(1, 20)))
            per_movie[int(m) + 1].append(f"{u},{int(rng.integers(1, 6))},{d.isoformat()}")
    files = []
    movie_ids = sorted(per_movie)
    if layout == "training_set":
        (folder / "training_set").mkdir(exist_ok=True)
        for m in movie_ids:
            path = folder / "training_set" / f"mv_{m:07d}.txt"
            path.write_text("\n".join([f"{m}:"] + per_movie[m]) + "\n", encoding="latin-1")
            files.append(path)
        parts = 0
    for p in range(1, parts + 1):
        lines = []
        for m in movie_ids[(p - 1)::parts]:
            lines.append(f"{m}:")
            lines.extend(per_movie[m])
        if p == 1 and malformed_line is not None:
            lines[malformed_line - 1] = lines[malformed_line - 1].rsplit(",", 1)[0]  # the date is missing
        path = folder / f"combined_data_{p}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="latin-1")
        files.append(path)
    with open(folder / "netflix_titles.csv", "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["show_id", "type", "title", "director", "cast", "country", "date_added", "release_year",
                    "rating", "duration", "listed_in", "description", "poster_url"])
        for i, (_t, year, mtitle, director, cast, listed, plot) in enumerate(MOVIES, 1):
            if mtitle is None:
                continue
            w.writerow([f"s{i}", "Movie", mtitle, director, cast, "", "", year, "TV-14", "90 min", listed, plot,
                        f"https://posters.example/{i}.jpg"])
        # a TV show with a movie's title and year: the movie row must win
        w.writerow(["s99", "TV Show", "Character", "", "Someone Else", "", "", 1997, "TV-MA", "1 Season",
                    "TV Dramas", "Not the film.", ""])
    truth = {str(i): m for i, m in enumerate(MOVIES, 1)}
    return {"combined": files, "titles": titles, "metadata": folder / "netflix_titles.csv",
            "truth": truth, "n_ratings": sum(len(v) for v in per_movie.values()), "users": users, "movies": MOVIES}


def write_llmrec(folder, movies, skip: tuple[int, ...] = (), posters: bool = True) -> dict:
    """LLMRec's Netflix files for `movies` (Prize ids 1..n), its ids from 0 in reverse order (so an
    id join would be wrong), leaving out the Prize ids in `skip`; directors 'LLM Director <n>';
    a poster image for every even LLMRec id."""
    from PIL import Image

    folder = Path(folder)
    (folder / "Netflix_Posters").mkdir(parents=True, exist_ok=True)
    kept = [(i, m) for i, m in enumerate(movies, 1) if i not in skip and m[1]]
    llmrec = {prize: k for k, (prize, _m) in enumerate(reversed(kept))}
    with open(folder / "item_attribute.csv", "w", encoding="utf-8", newline="") as a, \
            open(folder / "augmented_item_attribute_agg.csv", "w", encoding="utf-8", newline="") as b:
        wa, wb = csv.writer(a), csv.writer(b)
        for prize, m in sorted(kept, key=lambda x: llmrec[x[0]]):
            k = llmrec[prize]
            wa.writerow([k, m[1], m[0]])
            wb.writerow([k, m[1], m[0], f"LLM Director {prize}", "USA", "English"])
            if posters and k % 2 == 0:
                Image.new("RGB", (8, 12), (k % 256, 0, 0)).save(folder / "Netflix_Posters" / f"{k}.jpg")
    return {"attributes": folder / "item_attribute.csv", "augmented": folder / "augmented_item_attribute_agg.csv",
            "posters": folder / "Netflix_Posters", "llmrec_id": llmrec}
