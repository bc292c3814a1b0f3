"""When two options read the same: the normalised form every validity comparison uses."""

from __future__ import annotations

import re
import unicodedata


def display_key(text: str) -> str:
    """Texts equal up to case, punctuation and spacing ("OXO" / "Oxo", "Sci-Fi" / "Sci Fi") are one
    text: such a pair must never be the answer and a distractor, nor two options of one question."""
    return re.sub(r"[\W_]+", " ", str(text).casefold()).strip()



def without_accents(text: str) -> str:
    """'Átame' -> 'Atame': the compatibility decomposition without its combining marks."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
