"""The audit's shortcut findings on hand-made prompts: scores, Wilson intervals, gold make-up, the
table's column mark and caption line."""

import math

from lrworld.audit import shortcuts, validity

LABELS = ["A", "B", "C", "D"]


def prompt(i, answer, popularity):
    return {"qid": f"d/m/{i}", "prompt": "p", "labels": LABELS, "candidates": ["w", "xx", "yyy", "zzzz"],
            "answer_index": answer, "option_signals": {"popularity": popularity}}


def test_a_popular_gold_is_a_finding_and_a_hidden_one_is_not():
    popular = [prompt(i, i % 4, [9 if j == i % 4 else 1 for j in range(4)]) for i in range(40)]
    s = shortcuts.scores(popular)
    assert s["most_popular"]["correct"] == 40 and s["most_popular"]["above_chance"]
    assert s["least_popular"]["correct"] == 0 and not s["least_popular"]["above_chance"]
    # Wilson's interval of 40/40 (scipy): [0.912, 1]
    assert math.isclose(s["most_popular"]["ci_low"], 0.9124, abs_tol=1e-4) and s["most_popular"]["chance"] == 0.25
    # longest text is slot D: right on the 10 questions whose answer sits there, at chance
    assert s["longest_text"]["correct"] == 10 and not s["longest_text"]["above_chance"]


def test_gold_distribution_and_the_marks():
    qs = [{"candidates": ["a", "b", "c", "d"], "answer_index": 0, "signals": {"popularity": {"a": 9, "b": 1, "c": 2, "d": 3}}},
          {"candidates": ["a", "e", "f", "g"], "answer_index": 0, "signals": {"popularity": {"a": 9, "e": 5, "f": 5, "g": 5}}},
          {"candidates": ["h", "b", "c", "d"], "answer_index": 0, "signals": {"popularity": {"h": 4, "b": 1, "c": 2, "d": 3}}},
          {"candidates": ["i", "b", "c", "d"], "answer_index": 0}]
    g = shortcuts.gold_distribution(qs)
    assert (g["distinct_golds"], g["largest_share"], g["largest_gold"]) == (3, 0.5, "a")
    assert g["entropy_bits"] == 1.5 and g["entropy_max_bits"] == 2.0
    assert g["popularity"] == {"gold_median": 9, "distractor_median": 3}
    audit = {"shortcuts": {"measures": {"assoc_rule": {"findings": ["most_popular"]}, "attr_genre": {"findings": []}}}}
    found = shortcuts.found(audit)
    assert found == {"assoc_rule": ["most_popular"]}
    columns = ["assoc_rule", "attr_genre", "assoc_rule@cot"]
    marks = validity.column_marks(columns, found, {"attr_genre": "item-kNN: 2 of 50"})
    assert marks == {"assoc_rule": "\u00b6", "attr_genre": "\u2205", "assoc_rule@cot": "\u00b6"}
    found_line, empty_line = validity.notes(found, {"attr_genre": "item-kNN: 2 of 50"})
    assert found_line.startswith("\u00b6 ") and "assoc_rule: most_popular" in found_line
    assert empty_line.startswith("\u2205 ") and "attr_genre: item-kNN: 2 of 50" in empty_line
    assert validity.notes({}, {}) == [] and validity.column_marks(columns, {}, {}) == {}


def test_a_shortcut_reading_the_measures_own_signal_is_scored_but_no_finding():
    # mem_user_user declares history_overlap its own: the shared items are the similarity asked
    def q(i):
        return {"qid": f"d/m/{i}", "prompt": "p", "labels": LABELS, "candidates": ["w", "xx", "yyy", "zzzz"],
                "answer_index": i % 4,
                "option_signals": {"history_overlap": [5 if j == i % 4 else 0 for j in range(4)]}}
    recs = [q(i) for i in range(40)]
    questions = {m: ("", [{"candidates": list("abcd"), "answer_index": i % 4} for i in range(40)])
                 for m in ("mem_user_user", "assoc_rule")}
    out = shortcuts.audit(questions, [("p/mem_user_user/zero_shot.jsonl", "mem_user_user", recs),
                                      ("p/assoc_rule/zero_shot.jsonl", "assoc_rule", recs)])
    own = out["mem_user_user"]["shortcuts"]["history_overlap"]
    assert own["correct"] == 40 and own["above_chance"] and own["own_signal"]
    assert out["mem_user_user"]["findings"] == []
    # the same overlap on a measure that does not declare it: a finding
    assert out["assoc_rule"]["findings"] == ["history_overlap"]
    assert "40 of 40" not in "\n".join(shortcuts.finding_lines("d", {"mem_user_user": out["mem_user_user"]}))
    assert "1.00 [0.91, 1.00] =" in shortcuts.to_markdown(out)


def test_every_declared_own_signal_is_a_signal_shortcuts_read():
    from lrworld.models.shortcut import SIGNALS
    from lrworld.questions.measures import MEASURES
    assert all(set(m.own_signals) <= set(SIGNALS) for m in MEASURES)
    assert shortcuts.own_signal("mem_user_user") == ["history_overlap"] and shortcuts.own_signal("assoc_rule") == []


def test_wilson_is_scipys_wilson_interval():
    from scipy.stats import binomtest

    for n in (1, 7, 50, 300):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
            lo, hi = shortcuts.wilson(k, n)
            assert math.isclose(lo, ci.low, abs_tol=1e-12) and math.isclose(hi, ci.high, abs_tol=1e-12), (k, n)
    # 12 of 50 at 95%, by hand: z^2 = 3.8415, centre 27.8415 / 107.6829 = 0.2586, half-width 0.1156
    assert [round(x, 4) for x in shortcuts.wilson(12, 50)] == [0.143, 0.3741]
