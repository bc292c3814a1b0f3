"""Read the chosen option out of a free-text answer (paper A.7: a regular expression search).

Order of evidence, first hit wins:
1. the last explicit statement: "Answer: B", "the answer is (B)", "option B", "choice 3"
   (last, so a chain-of-thought reply is read at its conclusion);
2. a label at the very start: "B", "(B)", "B.", "B) Drama", "[3]", "3: Toy Story";
3. exactly one candidate text named in the reply ("Drama").
Anything else (empty, refusal, several candidates, a label that is not offered) is missed.
Letters are matched in upper case only outside explicit statements, so the article "a" is not
read as option A.
"""

from __future__ import annotations

import re
from typing import Sequence

_STRIP = re.compile(r"[*_`#]")


def _label_alt(labels: Sequence[str]) -> str:
    return "|".join(re.escape(lab) for lab in sorted(labels, key=len, reverse=True))


def parse_choice(text: str | None, labels: Sequence[str], candidates: Sequence[str] = (),
                 labels_shown: bool = True) -> int | None:
    """`labels_shown=False`: the prompt listed candidates without option letters (the paper's
    Table 24 LastFM prompts), so only candidate text counts ("A Perfect Circle" is not option A)."""
    if not text or not text.strip():
        return None
    t = _STRIP.sub("", text).strip()
    if not labels_shown:
        return _named_candidate(t, candidates)
    alt = _label_alt(labels)
    numeric = all(lab.isdigit() for lab in labels)
    explicit = re.compile(
        rf"(?:answer\s*(?:is|would be|:)|option|choice|candidate|index)\s*[:\-]?\s*[\(\[]?\s*({alt})(?![\w])",
        re.IGNORECASE)
    hits = explicit.findall(t)
    if hits:
        found = hits[-1].upper() if not numeric else hits[-1]
        if found in labels:
            return list(labels).index(found)
    lead = re.match(rf"^[\s\W]*?[\(\[]?\s*({alt})(?:[\)\]\.:,]|\s|$)", t)
    if lead and lead.group(1) in labels:
        return list(labels).index(lead.group(1))
    return _named_candidate(t, candidates)


def _named_candidate(t: str, candidates: Sequence[str]) -> int | None:
    low = t.lower()
    named = [i for i, c in enumerate(candidates)
             if c and re.search(rf"(?<!\w){re.escape(c.lower())}(?!\w)", low)]
    # A candidate that is a substring of another named one (e.g. "Drama" in "Drama Queen")
    # does not count as a separate mention.
    named = [i for i in named if not any(j != i and candidates[i].lower() in candidates[j].lower()
                                         for j in named)]
    return named[0] if len(named) == 1 else None
