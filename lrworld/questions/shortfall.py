"""Why a measure has fewer questions than asked, in one line a table caption or a report card can
show (`short` in the question report), and how many targets were tried to get them."""

from __future__ import annotations

MARK = "\u00a7"  # §: a measure with fewer questions than asked, in every table, caption and card


def notes(short: dict[str, str] | None) -> list[str]:
    """One caption line for the measures with fewer questions than asked: measure -> reason."""
    if not short:
        return []
    return [f"{MARK} short measures (fewer questions than asked): "
            + "; ".join(f"{m}: {why}" for m, why in sorted(short.items())) + "."]


# the counts of what an artifact dropped, in the order a reader checks them
_DROPS = ("dropped_margin", "dropped_seed_disagreement", "dropped_few_interactions", "dropped_gold_share",
          "dropped_no_matched_distractors", "dropped_no_overlap_matched_distractors", "dropped_same_text",
          "skipped_too_few_negatives")


_VALIDITY_DROPS = ("dropped_gold_rate", "dropped_learned_filter", "dropped_answerable")


def targets_tried(report: dict) -> int | None:
    """Windows a knowledge builder examined, or targets a ground-truth artifact visited."""
    for key in ("windows_examined", "candidates_considered", "targets_in_artifact"):
        if isinstance(report.get(key), int):
            return int(report[key])
    return None


def shortfall(report: dict) -> dict | None:
    """{requested, questions, targets_tried, reason} when `questions` < `requested`, else None."""
    asked, got = report.get("requested"), report.get("questions")
    if not isinstance(asked, int) or not isinstance(got, int) or got >= asked:
        return None
    tried = targets_tried(report)
    skipped = report.get("skipped") if isinstance(report.get("skipped"), dict) else {}
    why = [f"{k} {v}" for k, v in sorted(skipped.items(), key=lambda kv: -kv[1]) if v]
    why += [f"{k} {report[k]}" for k in _DROPS if isinstance(report.get(k), int) and report[k]]
    # what the filter against the negative controls dropped (lrworld/questions/validity.py)
    checked = report.get("validity") if isinstance(report.get("validity"), dict) else {}
    why += [f"{k} {checked[k]}" for k in _VALIDITY_DROPS if isinstance(checked.get(k), int) and checked[k]]
    reason = (f"{got} of {asked} questions: {tried} targets tried" if tried is not None else f"{got} of {asked} questions")
    return {"requested": asked, "questions": got, "targets_tried": tried,
            "reason": reason + (f" ({', '.join(why)})" if why else ", every eligible one used")}
