"""What a knowledge-free answerer may know about each option of a question, attached to the
question as `signals` (option text -> value, so a variant that reorders the options keeps them):

- `popularity`: an item option's interactions in the data, a user option's interactions, a value
  option's number of items that carry it (the catalogue's label frequency);
- `gold_count_others`: how many *other* questions of the measure have this option as their gold
  (leave-one-out: the question's own gold is never counted).

The prompt carries them aligned with its options (`option_signals`, lrworld/prompts/render.py) for
the shortcut answerers (lrworld/models/shortcut.py) and the audit's shortcut findings; no template
shows them to a model.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from lrworld.core.cells import strings


def popularity(interactions: pd.DataFrame, items: pd.DataFrame | None = None,
               field: str | None = None) -> dict[str, Counter]:
    """Counts by option kind: item and user ids by their interactions, values of `field` by items."""
    out = {"item": Counter(interactions["item_id"].astype(str).to_numpy()),
           "user": Counter(interactions["user_id"].astype(str).to_numpy())}
    if items is not None and field and field in items.columns:
        out["value"] = Counter(v for cell in items[field] for v in dict.fromkeys(strings(cell)))
    return out


def gold(q: dict) -> str:
    return str(q["candidates"][q["answer_index"]])


def attach(questions: list[dict], counts: dict[str, Counter]) -> list[dict]:
    """Each question with its `signals` (in place; also returned). `counts`: `popularity(...)`."""
    golds = Counter(gold(q) for q in questions)
    for q in questions:
        own = gold(q)
        cands = [str(c) for c in q["candidates"]]
        kind = counts.get(q.get("candidate_kind"))
        signals = {"gold_count_others": {c: golds[c] - (c == own) for c in cands}}
        if kind is not None:
            signals["popularity"] = {c: int(kind[c]) for c in cands}
        q["signals"] = signals
    return questions

