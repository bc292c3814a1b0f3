"""LLaRA's answer parsing (``MInterface.calculate_hr1`` and ``test_step`` in ljy0ustc/LLaRA).

An answer is reduced to its first line (``generate.strip().split("\\n")[0]``), lower-cased and
stripped; every candidate title (lower-cased, stripped) that occurs in it as a substring is a
match. The answer is *valid* when exactly one candidate matches, and *correct* when that match
equals the gold title. Nothing else (no fuzzy matching, no letters, no indices).

The parse is ambiguous when one candidate title is a substring of another ("Alien" / "Aliens",
identical titles of two items): naming the longer one matches both and is counted invalid.
:func:`ambiguous_pairs` finds those pairs so that candidate sets can be flagged and counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


def norm_title(title: str) -> str:
    return title.strip().lower().strip()


def first_line(raw_text: str) -> str:
    return raw_text.strip().split("\n")[0]


@dataclass(frozen=True)
class Parsed:
    valid: bool
    choice_index: int | None  # index into the candidate list when valid
    matched: tuple[int, ...]  # every candidate index whose title occurs in the answer
    correct: bool


def parse_answer(raw_text: str, candidate_titles: Sequence[str], gold_title: str) -> Parsed:
    gen = norm_title(first_line(raw_text or ""))
    cans = [norm_title(t) for t in candidate_titles]
    matched = tuple(i for i, c in enumerate(cans) if c in gen)
    valid = len(matched) == 1
    choice = matched[0] if valid else None
    # LLaRA compares strings: real == gen_cans_list[0]
    correct = valid and cans[choice] == norm_title(gold_title)
    return Parsed(valid=valid, choice_index=choice, matched=matched, correct=correct)


def parse_index(choice_index: int | None, n_candidates: int, gold_index: int) -> Parsed:
    """For recommenders that pick a candidate by index (traditional baselines): always valid when
    the index is in range, as in LLaRA's paper (ValidRatio 1 for GRU4Rec, Caser, SASRec)."""
    valid = choice_index is not None and 0 <= choice_index < n_candidates
    return Parsed(valid=valid, choice_index=choice_index if valid else None,
                  matched=(choice_index,) if valid else (), correct=valid and choice_index == gold_index)


def ambiguous_pairs(titles: Sequence[str]) -> list[tuple[int, int]]:
    """(i, j) with i != j and normalised title i contained in title j (identical titles give both
    (i, j) and (j, i)). Empty: LLaRA's parse can name every candidate unambiguously."""
    norm = [norm_title(t) for t in titles]
    return [(i, j) for i, a in enumerate(norm) for j, b in enumerate(norm) if i != j and a in b]
