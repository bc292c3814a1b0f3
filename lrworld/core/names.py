"""People's names as every source writes them, in one comparable form: job-title prefixes
("Director Ridley Scott"), IMDb's disambiguators ("David Butler (I)", "Richard Brooks I"), accents,
case, punctuation and spacing removed. The facts table compares sources by it and the question
builders keep a distractor from being a normalised equal of the gold by it.

Written by hand: no library knows these catalogue conventions.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from lrworld.core.display import without_accents

NAME_FIELDS = ("director", "cast")
SPELLING_RATIO = 0.9
# Job titles some catalogues put before a name ("Director Ridley Scott", "Directed by: X").
_PREFIX = re.compile(r"^(?:directors?|directed\s+by|dir\.|writers?|written\s+by|creators?|stars?|cast)\s*:?\s+",
                     re.I)
# IMDb tells apart two people of one name by a roman numeral: "David Butler (I)", "Richard Brooks I".
_DISAMBIGUATOR = re.compile(r"\s*\((?:[IVX]{1,4})\)\s*$|\s+(?:I|II|III|IV)$")


def clean_name(name) -> str:
    """The shown form: 'Director  Ridley Scott' -> 'Ridley Scott', 'David Butler (I)' -> 'David Butler'."""
    s = " ".join(str(name).split())
    s = _PREFIX.sub("", s)
    return _DISAMBIGUATOR.sub("", s).strip()


def name_words(name) -> list[str]:
    """The words of the compared form, in order ('Larry and Andy Wachowski' -> larry, and, andy, wachowski)."""
    s = without_accents(clean_name(name)).casefold()
    return re.sub(r"[^\w\s]+|_", "", s).split()


def name_key(name) -> str:
    """The compared form: clean_name without accents, case, punctuation or spaces."""
    return "".join(name_words(name))


def same_name(a: str, b: str) -> bool:
    """Keys equal, the same words in another order ('Tran Anh Hung' / 'Anh Hung Tran'), or one
    spelling of the other ('Andrei Tarkovsky' / 'Andrey Tarkovskiy')."""
    ka, kb = name_key(a), name_key(b)
    return bool(ka) and (ka == kb or sorted(name_words(a)) == sorted(name_words(b))
                         or SequenceMatcher(None, ka, kb).ratio() >= SPELLING_RATIO)
