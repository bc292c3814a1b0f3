"""Is each measure valid by test? The audit's two controls beside the shortcut rules
(lrworld/audit/shortcuts.py):

- the learned negative control (lrworld/questions/learned.py): a knowledge-free answerer learned
  across the measure's questions, cross-validated by question, over every option feature a prompt
  shows or the data's counts give (lrworld/questions/option_features.py), the measure's own
  signals left out; its score, interval and the features it leans on. Above chance: a finding, as
  a shortcut rule's is;
- the positive control (lrworld/groundtruth/positive_control.py): an answerer with the knowledge the
  measure claims, computed apart from the gold's own computation. Not above chance: the measure is
  "not answerable from the data".

One mark per meaning, in every table, caption, card and release: `FOUND` where a knowledge-free
answerer (a rule or the learned one) beats chance, `UNANSWERABLE` where the positive control does
not.
"""

from __future__ import annotations

import pandas as pd

from lrworld.questions import measures
from lrworld.questions.learned import cross_validate
from lrworld.questions.option_features import DataCounts, option_features

FOUND = "\u00b6"  # pilcrow: a knowledge-free answerer's interval lies above chance
UNANSWERABLE = "\u2205"  # empty set: the positive control does not find the gold above chance
LEARNED = "learned"  # the learned answerer's name among a measure's findings
# fold draws the audit's learned score is the mean of (one draw's score varies by a few questions)
AUDIT_DRAWS = 5


def learned_controls(dataset: str, domain: str, questions: dict[str, list[dict]], interactions: pd.DataFrame,
                     items: pd.DataFrame, exclude_values: dict[str, list[str]] | None = None,
                     seed: int = 0, user_items: int | None = None) -> dict[str, dict]:
    """measure -> the learned negative control's summary over its questions (own signals left out),
    over what the prompts show (`user_items`: the dataset's `user_items_shown`)."""
    from lrworld.prompts.render import ItemTexts

    texts = ItemTexts(items, exclude_values, user_items)
    out = {}
    for m, qs in sorted(questions.items()):
        if not qs or not qs[0].get("candidates"):
            continue
        measure = measures.get(domain, m)
        table = option_features(qs, items, DataCounts(interactions, items, measure.field), exclude_values, texts)
        # folds of its own: none the construction's filter checked its questions under
        result = cross_validate(table.without(measure.own_signals), seed, f"{dataset}/{m}/audit",
                                repeats=AUDIT_DRAWS)
        out[m] = {**result.summary(), "own_signals_left_out": list(measure.own_signals)}
    return out


# a finding of the construction itself: its filter could not bring every knowledge-free answerer to
# chance before it reached `questions.validity.min_share` of the questions asked
UNFILTERED = "construction"


def controls(learned: dict[str, dict], positive: dict[str, dict], shortcut_measures: dict[str, dict],
             reports: dict[str, dict] | None = None) -> dict:
    """The audit json's `validity`: per measure its learned and positive controls and its findings
    (the shortcut rules above chance, `learned` when the learned answerer is, and `construction`
    where the question report says the filter could not pass)."""
    out = {}
    for m in sorted(set(learned) | set(positive) | set(shortcut_measures)):
        found = list((shortcut_measures.get(m) or {}).get("findings") or [])
        if (learned.get(m) or {}).get("above_chance"):
            found.append(LEARNED)
        if ((reports or {}).get(m, {}).get("validity") or {}).get("passes") is False:
            found.append(UNFILTERED)
        pos = positive.get(m)
        out[m] = {"learned": learned.get(m), "positive": pos, "findings": found,
                  "answerable": None if pos is None else bool(pos["answerable"])}
    return {"measures": out}


def finding_lines(dataset: str, result: dict) -> list[str]:
    """One line per measure the learned answerer passes, then one per measure whose construction's
    filter could not pass (`controls`' result), as the audit logs them."""
    by_measure = result["measures"]
    learned = [f"{dataset}/{m}: the learned knowledge-free answerer answers {r['correct']} of {r['n']} "
               f"({r['score']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]) against chance {r['chance']:.2f}, leaning on "
               f"{', '.join(r['leans_on'])}: the measure can be passed without its knowledge"
               for m, r in ((m, v["learned"]) for m, v in by_measure.items() if LEARNED in v["findings"])]
    return learned + [f"{dataset}/{m}: the construction's filter could not bring every knowledge-free answerer to "
                      f"chance (results/questions/{dataset}/{m}.report.json, validity)"
                      for m, v in by_measure.items() if UNFILTERED in v["findings"]]


def _measures(audit_json: dict) -> dict[str, dict]:
    return ((audit_json or {}).get("validity") or {}).get("measures") or {}


def found(audit_json: dict) -> dict[str, list[str]]:
    """measure -> the knowledge-free answerers (rules, `learned`) whose interval lies above chance."""
    out = {m: list(r["findings"]) for m, r in _measures(audit_json).items() if r.get("findings")}
    # an audit made before the learned control: its shortcut findings alone
    if not _measures(audit_json):
        from lrworld.audit import shortcuts

        out = shortcuts.found(audit_json)
    return out


def unanswerable(audit_json: dict) -> dict[str, str]:
    """measure -> its positive control in words, where it does not find the gold above chance."""
    return {m: _positive_words(r["positive"]) for m, r in _measures(audit_json).items() if r.get("answerable") is False}


def _positive_words(p: dict) -> str:
    return (f"{p['method']}: {p['correct']} of {p['n']} ({p['score']:.2f} [{p['ci_low']:.2f}, {p['ci_high']:.2f}]) "
            f"against chance {p['chance']:.2f}")


def notes(findings: dict[str, list[str]], not_answerable: dict[str, str]) -> list[str]:
    """The caption lines of a table or card: which measures a knowledge-free answerer passes, and which
    no answerer with the knowledge can."""
    out = []
    if findings:
        out.append(f"{FOUND} a knowledge-free answerer's 95% interval lies above chance (the audit's shortcut rules "
                   "and its learned answerer, docs/audit.md): "
                   + "; ".join(f"{m}: {', '.join(names)}" for m, names in sorted(findings.items())) + ".")
    if not_answerable:
        out.append(f"{UNANSWERABLE} not answerable from the data: the positive control, an answerer with the "
                   "knowledge the measure claims, does not find the gold above chance (docs/audit.md): "
                   + "; ".join(f"{m}: {why}" for m, why in sorted(not_answerable.items())) + ".")
    return out


def column_marks(columns, findings: dict[str, list[str]], not_answerable: dict[str, str]) -> dict[str, str]:
    """column -> FOUND and/or UNANSWERABLE, by its measure (every variant's column)."""
    out = {}
    for c in columns:
        m = c.partition("@")[0]
        mark = (FOUND if m in findings else "") + (UNANSWERABLE if m in not_answerable else "")
        if mark:
            out[c] = mark
    return out


# The .csv's figures of a measure's validity (the same on every row), after the table's own.
CSV_FIGURES = ("negative_control", "negative_control_ci_low", "negative_control_ci_high", "knowledge_free_above_chance",
               "positive_control", "positive_control_ci_low", "positive_control_ci_high", "answerable_from_data")


def csv_figures(audit_json: dict, measure: str) -> dict:
    """The CSV_FIGURES of one measure (None where the audit has no control of it)."""
    r = _measures(audit_json).get(measure) or {}
    learned, pos = r.get("learned") or {}, r.get("positive") or {}
    return {"negative_control": learned.get("score"), "negative_control_ci_low": learned.get("ci_low"),
            "negative_control_ci_high": learned.get("ci_high"),
            "knowledge_free_above_chance": "+".join(r.get("findings") or []) or None if r else None,
            "positive_control": pos.get("score"), "positive_control_ci_low": pos.get("ci_low"),
            "positive_control_ci_high": pos.get("ci_high"), "answerable_from_data": r.get("answerable")}


def learned_row(audit_json: dict) -> dict[str, dict]:
    """measure -> the learned answerer's (score, n, ci_low, ci_high): the table's reference row."""
    return {m: r["learned"] for m, r in _measures(audit_json).items() if r.get("learned")}


def to_markdown(result: dict) -> str:
    """The audit report's validity section."""
    lines = ["## Validity controls", "",
             "Learned: a knowledge-free answerer learned across the measure's questions (logistic regression over "
             "every option feature a prompt shows or the data's counts give, 5-fold cross-validated by question, the mean of 5 draws of the folds), score "
             f"[95% Wilson interval] and the features it leans on; `{FOUND}` above chance. Positive: an answerer with the "
             f"knowledge the measure claims, computed apart from the gold; `{UNANSWERABLE}` not above chance (not "
             "answerable from the data). Stability: the share of golds still the strict best option under bootstrap "
             "resamples.", "",
             "| measure | chance | learned | leans on | positive control | method | stability |",
             "|---|---:|---:|---|---:|---|---:|"]
    for m, r in result.get("measures", {}).items():
        lr, pos = r.get("learned") or {}, r.get("positive") or {}
        chance = lr.get("chance", pos.get("chance"))
        stability = pos.get("stability")
        lines.append(f"| {m} | {'' if chance is None else f'{chance:.2f}'} | {_cell(lr, lr.get('above_chance'), FOUND)} "
                     f"| {', '.join(lr.get('leans_on', []))} | {_cell(pos, not pos.get('answerable'), UNANSWERABLE) or 'none'} "
                     f"| {pos.get('method', '')} | {'' if stability is None else stability} |")
    return "\n".join(lines) + "\n"


def _cell(r: dict, marked, mark: str) -> str:
    """`score [low, high]` and `mark` when `marked` ("" for no result)."""
    if not r:
        return ""
    return f"{r['score']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]" + (f" {mark}" if marked else "")
