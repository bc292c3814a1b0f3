"""What the MovieLens layouts share: the title-with-year convention and ML-100K's genre list."""

from __future__ import annotations

import re

# u.item's 19 genre flags, in file order (u.genre).
ML100K_GENRES = [
    "unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary",
    "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller",
    "War", "Western",
]

_TITLE_YEAR = re.compile(r"^(?P<title>.*?)\s*\((?P<year>\d{4})\)\s*$")


def split_title_year(title: str) -> tuple[str, int | None]:
    """'Toy Story (1995)' -> ('Toy Story', 1995); a title without a year keeps its text."""
    m = _TITLE_YEAR.match(title.strip())
    if not m:
        return title.strip(), None
    return m.group("title"), int(m.group("year"))
