"""One display form for item titles: MovieLens' trailing articles moved to the front.

MovieLens files write "Matrix, The", "Clockwork Orange, A", "Postino, Il", also inside the
alternate titles in parentheses ("Double vie de Véronique, La (Double Life of Veronique, The)"),
while newer ml-latest titles and every other source read "The X". One prompt would mix both forms,
and a model that knows "The Matrix" has to recognise "Matrix, The". `display_title` is applied once,
at ingest (`datasets.<name>.display_titles`), and every track reads the result.

Written by hand: the form is MovieLens' own convention, no library parses it.
"""

from __future__ import annotations

import re

import pandas as pd

# Articles MovieLens moves to the end (English, French, Italian, Spanish, Portuguese, German,
# Dutch, Scandinavian). Left out on purpose: "I" (Italian plural, but also the pronoun and the
# numeral, as in "Part I"), "De", "En", "As" (common English words after a comma).
ARTICLES = ("The", "A", "An", "Le", "La", "Les", "L'", "Il", "Lo", "Gli", "El", "Los", "Las", "O", "Os",
            "Der", "Die", "Das", "Det", "Den", "Het", "Un", "Une", "Una", "Uno", "Ein", "Eine")
_TRAILING = re.compile(r"^(?P<body>.*\S),\s+(?P<article>" + "|".join(re.escape(a) for a in ARTICLES) + r")$")
# A title is a main part followed by parenthesised groups (alternate titles, the year).
_GROUP = re.compile(r"(\([^()]*\))")


def _front(segment: str) -> str:
    core = segment.strip()
    m = _TRAILING.match(core)
    if not m:
        return segment
    art, body = m.group("article"), m.group("body")
    moved = f"{art}{body}" if art.endswith("'") else f"{art} {body}"
    lead = segment[: len(segment) - len(segment.lstrip())]
    trail = segment[len(segment.rstrip()):]
    return lead + moved + trail


def display_title(title: str) -> str:
    """'Matrix, The' -> 'The Matrix'; 'Enfer, L'' -> "L'Enfer"; 'Star Maker, The (Uomo delle stelle,
    L')' -> "The Star Maker (L'Uomo delle stelle)". A title without the form is returned unchanged."""
    if not isinstance(title, str):
        return title
    parts = _GROUP.split(title)
    return "".join("(" + _front(p[1:-1]) + ")" if _GROUP.fullmatch(p) else _front(p) for p in parts)


def apply_display_titles(items: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Rewrite `title` into its display form, keep the file's form in `original_title`; report the
    number of titles rewritten and a few examples."""
    out = items.copy()
    out["original_title"] = out["title"]
    out["title"] = out["title"].map(display_title)
    changed = out["title"] != out["original_title"]
    examples = out.loc[changed, ["original_title", "title"]].head(5)
    return out, {"titles": int(len(out)), "rewritten": int(changed.sum()),
                 "examples": [f"{a} -> {b}" for a, b in zip(examples["original_title"], examples["title"])]}
