"""When two options read the same: the normalised form every validity comparison uses."""

from __future__ import annotations

import re


def display_key(text: str) -> str:
    """Texts equal up to case, punctuation and spacing ("OXO" / "Oxo", "Sci-Fi" / "Sci Fi") are one
    text: such a pair must never be the answer and a distractor, nor two options of one question."""
    return re.sub(r"[\W_]+", " ", str(text).casefold()).strip()


def item_keys(items) -> dict[str, str]:
    """item id -> display key of the text a prompt shows for it (`title (year)`). Two items with
    one key (ML-100K lists 18 films twice) are never two options of one question."""
    from lrworld.prompts.render import item_text

    rows = items[["item_id", "title", "year"]].to_dict("records")
    return {str(r["item_id"]): display_key(item_text(r)) for r in rows}
