"""A measure's question builder: its `builder` is a `"module:attr"` reference to a function (as every
heavy registry entry names its code), imported only by the job that builds the measure's questions,
so an extension's builder lives in its own module, inside the checkout or in the user's package.

How it is called follows from the measure:

- `WINDOWS` (no `artifact`): built from each user's latest window at question time
  (`lrworld.questions.knowledge`: field_values, item_text, item_title), called as
  `build(measure, dataset, windows, items, seed, item_texts=, limit=, exclude=) -> (questions, report)`.
- `ARTIFACT` (the measure names an `artifact`): built from that ground-truth artifact by the
  `gt_questions` rule (`lrworld.groundtruth.questions`), called as
  `build(interactions, artifact_df, n_questions, seed, dataset, display=) -> (questions, report)`
  (and `debias=`, `shown=` where it takes them: `build_from_artifact`).
"""

from __future__ import annotations

from inspect import signature
from typing import Callable

from lrworld.core.registry import resolve

WINDOWS, ARTIFACT = "windows", "artifact"


def source(measure) -> str:
    """What the measure's questions are built from, and so how its builder is called."""
    return ARTIFACT if measure.artifact else WINDOWS


def builder(measure) -> Callable:
    """The measure's builder function, imported now; a bad reference names the measure."""
    try:
        fn = resolve(measure.builder)
    except (ImportError, ValueError) as exc:
        raise ValueError(f"measure {measure.id!r}: question builder {measure.builder!r}: {exc}") from None
    if not callable(fn):
        raise ValueError(f"measure {measure.id!r}: question builder {measure.builder!r} is not a function")
    return fn


def build_from_artifact(measure, interactions, artifact_df, n_questions: int, seed: int, dataset: str,
                        display: dict[str, str] | None = None, debias=None, items=None,
                        exclude_values: dict[str, list[str]] | None = None, validity=None,
                        user_items: int | None = None):
    """An ARTIFACT measure's questions: the one call the `gt_questions` rule, `lrworld plan` and the
    tests make, so the plan counts the questions the rule writes. `validity` (a
    `validity.Validity`): the builder makes `overdraw` times the questions and the filter keeps at
    most `n_questions` (lrworld/questions/validity.py), its controls reading a candidate user as
    the prompts show one (`user_items`: the dataset's `user_items_shown`). `debias` (a
    `distractors.Debias`) reaches builders that take it only when it asks for something; with
    matched distractors, a builder that takes `shown` gets what a prompt shows of an item option
    (from `items` and `questions.exclude_values`), to match the words it shares with the history."""
    from lrworld.questions.distractors import Debias

    from lrworld.questions import signals

    extra = {"debias": debias} if debias is not None and debias != Debias() else {}
    takes = signature(builder(measure)).parameters
    if debias is not None and debias.matched and items is not None and "shown" in takes:
        from lrworld.prompts.render import ItemTexts, item_shower

        extra["shown"] = item_shower({"qtype": measure.qtype}, ItemTexts(items, exclude_values))
    if debias is not None and debias.matched and items is not None and "closeness" in takes:
        from lrworld.questions.option_features import Closeness

        extra["closeness"] = Closeness(items, interactions, exclude_values)
    from lrworld.questions.validity import Validity, filtered

    validity = validity or Validity()
    qs, report = builder(measure)(interactions, artifact_df, validity.asked(n_questions), seed, dataset,
                                  display=display, **extra)
    if items is not None:
        # `validity`: built `overdraw` times over, filtered to n_questions against the negative controls
        qs, checked = filtered(qs, n_questions, measure, interactions, items, validity, seed, dataset, exclude_values,
                               user_items)
        if checked is not None:
            report = {**report, "validity": checked}
    # what a knowledge-free answerer may know of each option (the shortcut rows, the audit's findings)
    signals.attach(qs, signals.popularity(interactions))
    return qs, report
