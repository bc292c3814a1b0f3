"""The prompt-extractor: turn an LLM's free text into a ranked list of item ids.

Rules (SRBench's numeric-oriented extraction, made exact here):

1. List markers are removed first: a line that starts with ``1.``, ``2)``, ``(3)``, ``#4``, ``-``
   or ``*`` followed by a space loses that marker, so "1. 242" yields 242, not 1 and 242. A colon
   is not a marker: the prompt writes items as ``<id>: <title>`` and models echo that form.
2. Every other number is read, in order of appearance, as an item index (the integer id the
   prompt showed). A number is a run of digits standing alone: digits glued to letters or
   underscores ("B007IY97U0", "2nd", "id_7") and the parts of a decimal ("4.5") are not read.
3. A number that is no item index of the dataset is a hallucination: dropped and counted.
4. Repeats of an id already taken are dropped (counted as duplicates).
5. The list is truncated to K.

The hallucination rate of a set of outputs is (Σ hallucinated numbers) / (Σ numbers read), counted
before truncation (rule 5), so ids the model wrote past position K count too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

_MARKER = re.compile(r"^\s*(?:\(?\d{1,3}[.)\]](?=\s)|#\d{1,3}[.)]?(?=\s)|[-*\u2022])\s*", re.M)
_NUMBER = re.compile(r"(?<![\w.])\d+(?!\w|\.\d)")


@dataclass
class Extraction:
    items: list[str]  # dataset item ids, best first, at most K
    numbers: list[int] = field(default_factory=list)  # every number read, in order
    hallucinated: list[int] = field(default_factory=list)  # numbers that are no item index
    n_duplicates: int = 0

    @property
    def hallucination_rate(self) -> float:
        return len(self.hallucinated) / len(self.numbers) if self.numbers else 0.0

    def to_dict(self) -> dict:
        return {"items": self.items, "n_numbers": len(self.numbers), "hallucinated": self.hallucinated,
                "n_duplicates": self.n_duplicates}


def read_numbers(text: str) -> list[int]:
    """Rules 1-2: the numbers of ``text`` in order, list markers removed."""
    return [int(m) for m in _NUMBER.findall(_MARKER.sub("", text))]


def extract(text: str, index_to_item: Mapping[int, str], k: int) -> Extraction:
    """Apply rules 1-5 to one output. ``index_to_item`` maps the prompt's integer ids to dataset
    item ids (the item universe)."""
    numbers = read_numbers(text)
    out: list[str] = []
    seen: set[str] = set()
    hallucinated: list[int] = []
    dups = 0
    for n in numbers:
        item = index_to_item.get(n)
        if item is None:
            hallucinated.append(n)
        elif item in seen:
            dups += 1
        else:
            seen.add(item)
            out.append(item)
    return Extraction(out[:k], numbers, hallucinated, dups)


def hallucination_rate(extractions: Iterable[Extraction | dict]) -> dict:
    """Micro-averaged rate over many outputs, plus the share of outputs with no valid id."""
    n_num = n_hall = n_out = n_empty = 0
    for e in extractions:
        d = e.to_dict() if isinstance(e, Extraction) else e
        n_out += 1
        n_num += d["n_numbers"]
        n_hall += len(d["hallucinated"])
        n_empty += not d["items"]
    return {"hallucination_rate": n_hall / n_num if n_num else 0.0, "n_numbers": n_num,
            "n_hallucinated": n_hall, "n_outputs": n_out, "no_valid_id_rate": n_empty / n_out if n_out else 0.0}
