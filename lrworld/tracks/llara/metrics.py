"""HitRatio@1 and valid ratio, named so that the two HitRatio definitions cannot be confused.

- ``hit_ratio_at_1_all``: correct / **all** questions, an invalid answer counting as a miss. The
  HitRatio@1 of LLaRA's results table: its code (``model/model_interface.py``) logs ``metric =
  hr * prediction_valid_ratio``, and the paper's LLM cells are whole counts over all questions
  (Llama2 on LastFM 0.0246 = 3/122). Also the eval card's recipe (``sum(p == g) / len(golds)``).
  This is the column compared with the paper.
- ``hit_ratio_at_1_valid``: correct / **valid** answers (0 when nothing is valid): LLaRA's
  ``calculate_hr1`` return value ``hr1 = correct_num / valid_num`` (logged as ``test_hr``), shown
  beside it.
- ``valid_ratio``: valid answers / all questions (both definitions agree).

hit_ratio_at_1_all = hit_ratio_at_1_valid * valid_ratio.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from lrworld.tracks.llara.parse import Parsed


def valid_ratio(parsed: Sequence[Parsed]) -> float:
    return sum(p.valid for p in parsed) / len(parsed) if parsed else 0.0


def hit_ratio_at_1_valid(parsed: Sequence[Parsed]) -> float:
    n_valid = sum(p.valid for p in parsed)
    return sum(p.correct for p in parsed) / n_valid if n_valid else 0.0


def hit_ratio_at_1_all(parsed: Sequence[Parsed]) -> float:
    return sum(p.correct for p in parsed) / len(parsed) if parsed else 0.0


def summarize(parsed: Sequence[Parsed], ambiguous: Iterable[bool] | None = None) -> dict:
    """All metrics plus counts; with ``ambiguous`` flags (one per question) also the number of
    flagged candidate sets and the metrics over the unflagged questions only."""
    out = {
        "n_questions": len(parsed),
        "n_valid": sum(p.valid for p in parsed),
        "n_correct": sum(p.correct for p in parsed),
        "valid_ratio": valid_ratio(parsed),
        "hit_ratio_at_1_valid": hit_ratio_at_1_valid(parsed),
        "hit_ratio_at_1_all": hit_ratio_at_1_all(parsed),
    }
    if ambiguous is not None:
        flags = list(ambiguous)
        if len(flags) != len(parsed):
            raise ValueError(f"{len(flags)} ambiguity flags for {len(parsed)} answers")
        clean = [p for p, f in zip(parsed, flags) if not f]
        out["n_ambiguous_sets"] = sum(flags)
        out["n_invalid_in_ambiguous_sets"] = sum(not p.valid for p, f in zip(parsed, flags) if f)
        out["unambiguous"] = {
            "n_questions": len(clean),
            "valid_ratio": valid_ratio(clean),
            "hit_ratio_at_1_valid": hit_ratio_at_1_valid(clean),
            "hit_ratio_at_1_all": hit_ratio_at_1_all(clean),
        }
    return out
