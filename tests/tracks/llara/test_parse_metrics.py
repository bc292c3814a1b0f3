"""Hand-computed fixtures for LLaRA's parse and both HitRatio@1 definitions."""

import pytest

from lrworld.tracks.llara.metrics import hit_ratio_at_1_all, hit_ratio_at_1_valid, summarize, valid_ratio
from lrworld.tracks.llara.parse import ambiguous_pairs, parse_answer, parse_index

CANS = ["Toy Story", "Heat", "Fargo", "Alien", "Aliens"]


@pytest.mark.parametrize(
    "answer,valid,choice,correct",
    [
        ("Fargo", True, 2, True),
        ("  fargo  ", True, 2, True),  # lower-cased, stripped
        ("I recommend Fargo to this user.", True, 2, True),  # substring, as LLaRA
        ("Heat", True, 1, False),
        ("Fargo\nHeat", True, 2, True),  # only the first line counts
        ("\n\nFargo", True, 2, True),  # leading blank lines are stripped first
        ("Heat or Fargo", False, None, False),  # two candidates named
        ("Aliens", False, None, False),  # "alien" is inside "aliens": ambiguous -> invalid
        ("Alien", True, 3, False),
        ("Casablanca", False, None, False),  # no candidate
        ("", False, None, False),
    ],
)
def test_parse_answer(answer, valid, choice, correct):
    p = parse_answer(answer, CANS, gold_title="Fargo")
    assert (p.valid, p.choice_index, p.correct) == (valid, choice, correct)


def test_ambiguous_pairs():
    assert ambiguous_pairs(CANS) == [(3, 4)]
    assert ambiguous_pairs(["Drive", "Swervedriver", "Muse"]) == [(0, 1)]  # case-insensitive
    assert sorted(ambiguous_pairs(["Chasing Amy", "chasing amy "])) == [(0, 1), (1, 0)]
    assert ambiguous_pairs(["A", "B"]) == []


def test_parse_index():
    assert parse_index(2, 20, 2).correct and parse_index(3, 20, 2).valid
    assert not parse_index(None, 20, 2).valid and not parse_index(20, 20, 2).valid


def test_both_hit_ratios_hand_computed():
    gold = "Fargo"
    answers = ["Fargo", "fargo!", "Heat", "Heat and Fargo", "nothing"]
    parsed = [parse_answer(a, CANS, gold) for a in answers]
    # valid: Fargo, fargo!, Heat -> 3 of 5; correct: 2
    assert valid_ratio(parsed) == pytest.approx(3 / 5)
    assert hit_ratio_at_1_valid(parsed) == pytest.approx(2 / 3)  # LLaRA: correct / valid
    assert hit_ratio_at_1_all(parsed) == pytest.approx(2 / 5)  # eval card: correct / total
    s = summarize(parsed, ambiguous=[False, False, False, True, True])
    assert s["n_valid"] == 3 and s["n_correct"] == 2 and s["n_ambiguous_sets"] == 2
    assert s["n_invalid_in_ambiguous_sets"] == 2
    assert s["unambiguous"]["hit_ratio_at_1_all"] == pytest.approx(2 / 3)
    assert s["hit_ratio_at_1_all"] == pytest.approx(s["hit_ratio_at_1_valid"] * s["valid_ratio"])


def test_nothing_valid_gives_zero_not_nan():
    parsed = [parse_answer("zzz", CANS, "Fargo")] * 3
    assert valid_ratio(parsed) == 0 and hit_ratio_at_1_valid(parsed) == 0 and hit_ratio_at_1_all(parsed) == 0
    assert summarize([])["valid_ratio"] == 0
