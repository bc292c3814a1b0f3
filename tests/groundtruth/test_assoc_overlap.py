"""Matched assoc_rule options on real ML-100K: the words an option shares with the antecedents
(what the `history_overlap` shortcut reads off the prompt) do not point at the consequent."""

from lrworld.groundtruth import questions as Q
from lrworld.prompts.render import ItemTexts, item_keys, item_shower, render_all, template_path
from lrworld.questions.distractors import Debias

DEBIAS = Debias("matched", {"hit10": 0.02})


def _found(questions, items):
    """The history_overlap shortcut's expected score: the gold's share of the most overlapping options."""
    prompts = render_all(questions, template_path("movie", "assoc_rule", "zero_shot"), items, "zero_shot")
    total = 0.0
    for p in prompts:
        words = p["option_signals"]["history_overlap"]
        top = [i for i, w in enumerate(words) if w == max(words)]
        total += (p["answer_index"] in top) / len(top)
    return total / len(prompts)


def test_matched_options_share_as_many_words_with_the_antecedents_as_chance_allows(ml100k, ml100k_rules):
    inter, items = ml100k
    shown = item_shower({"qtype": "hit10"}, ItemTexts(items))
    args = (inter, ml100k_rules[0], 200, 7, "ml-100k")
    plain, _ = Q.build_assoc_rule_questions(*args, display=item_keys(items), debias=DEBIAS)
    balanced, report = Q.build_assoc_rule_questions(*args, display=item_keys(items), debias=DEBIAS, shown=shown)
    assert len(balanced) == 200 and report["dropped_no_overlap_matched_distractors"] > 0
    # chance is 0.10 with a standard error of 0.021 at 200 questions: popularity and length matched
    # alone leave the consequent more than 3 standard errors above it, the overlap matched within 2
    se = (0.10 * 0.90 / len(balanced)) ** 0.5
    found = _found(plain, items), _found(balanced, items)
    assert found[0] > 0.10 + 3 * se and found[1] <= 0.10 + 2 * se, found
