"""Aligning items to a metadata table by normalised title + year (Netflix Prize titles to the
Kaggle catalogue or to LLMRec's item attributes, paper §3).

Titles are compared after HTML entities, accents, case, punctuation, '&'/'and' and a leading or
trailing article ("Matrix, The") are normalised away; a metadata row is a candidate when its year
is within `year_tolerance` of the item's. Among candidates the closest year wins, then a movie
over a TV show; two equally good rows are ambiguous and neither is trusted (counted).
"""

from __future__ import annotations

import html
import re
import unicodedata

import pandas as pd

_ARTICLE = re.compile(r"^(.*), (the|a|an)$", re.I)


def norm_title(t: str, keep_articles: bool = False) -> str:
    """`keep_articles`: a leading article stays ("The Company" is not "Company"; a trailing one is
    still moved to the front, "Company, The" = "The Company")."""
    t = html.unescape(str(t)).strip()
    m = _ARTICLE.match(t)
    if m:
        t = f"{m.group(2)} {m.group(1)}"
    t = unicodedata.normalize("NFKD", t).encode("ascii", "ignore").decode().lower().replace("&", " and ")
    t = re.sub(r"[^a-z0-9]+", " ", t).strip()
    return t if keep_articles else re.sub(r"^(the|a|an) ", "", t)


def to_year(v) -> int | None:
    try:
        y = int(float(v))
    except (TypeError, ValueError):
        return None
    return y if 1000 <= y <= 3000 else None


def align_title_year(items: pd.DataFrame, titles: list, years: list, year_tolerance: int,
                     is_tv: list | None = None, keep_articles: bool = False) -> tuple[dict[str, int], dict]:
    """{item_id: index into the metadata lists} and counts of what could not be aligned."""
    is_tv = is_tv or [False] * len(titles)
    by_title: dict[str, list[int]] = {}
    for i, t in enumerate(titles):
        n = norm_title(t, keep_articles) if isinstance(t, str) else ""
        if n:
            by_title.setdefault(n, []).append(i)
    meta_year = [to_year(y) for y in years]
    out, ambiguous, no_year = {}, 0, 0
    for item_id, title, year in zip(items["item_id"].astype(str), items["title"], items["year"]):
        year = to_year(year)
        if year is None:
            no_year += 1
            continue
        cands = [i for i in by_title.get(norm_title(title, keep_articles), [])
                 if meta_year[i] is not None and abs(meta_year[i] - year) <= year_tolerance]
        if not cands:
            continue
        key = [(abs(meta_year[i] - year), bool(is_tv[i])) for i in cands]
        best = min(key)
        winners = [i for i, k in zip(cands, key) if k == best]
        if len(winners) > 1:
            ambiguous += 1  # two equally good rows: neither is trusted
            continue
        out[item_id] = winners[0]
    return out, {"ambiguous_dropped": ambiguous, "items_without_year": no_year}
