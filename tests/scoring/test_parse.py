import pytest

from lrworld.scoring.parse import parse_choice

MCQ = ("A", "B", "C", "D")
CANDS = ("Drama", "Comedy", "War", "Horror")


@pytest.mark.parametrize("text,expected", [
    ("B", 1), ("B.", 1), ("(C)", 2), ("D) Horror", 3), ("  **A**", 0), ("[B]", 1),
    ("Answer: C", 2), ("The answer is (D).", 3), ("I would pick option B because", 1),
    ("answer: b", 1),
    ("Comedy", 1), ("I think it is a War movie.", 2),
    # chain of thought: the conclusion wins
    ("A is unlikely, C fits the history. Answer: C", 2),
    # missed: empty, refusal, several candidates, a label not offered, an article 'a'
    ("", None), (None, None), ("I cannot help with that.", None), ("Drama or Comedy", None),
    ("E", None), ("a movie about love", None),
])
def test_mcq_cases(text, expected):
    assert parse_choice(text, MCQ, CANDS) == expected


@pytest.mark.parametrize("text,expected", [
    ("4", 4), ("[7]", 7), ("Candidate 3", 3), ("The answer is 0.", 0), ("9: Fargo", 9), ("12", None),
])
def test_ten_candidate_indices(text, expected):
    assert parse_choice(text, tuple(str(i) for i in range(10)), ()) == expected


def test_candidate_inside_another_counts_once():
    assert parse_choice("Drama Queen", ("A", "B"), ("Drama", "Drama Queen")) == 1


def test_prompts_without_option_letters_parse_by_candidate_text_only():
    cands = ("A Perfect Circle", "Tool", "Muse", "Placebo")
    assert parse_choice("A Perfect Circle", ("A", "B", "C", "D"), cands, labels_shown=False) == 0
    assert parse_choice("B", ("A", "B", "C", "D"), cands, labels_shown=False) is None
    assert parse_choice("I'd say Muse.", ("A", "B", "C", "D"), cands, labels_shown=False) == 2


@pytest.mark.parametrize("labels,text,expected", [
    # a chain-of-thought reply states a first guess, then revises it: its conclusion is the answer
    (MCQ, "First thought: the answer is B, since he rates comedies. But the history is mostly war films, "
          "so on reflection the answer is C.", 2),
    (MCQ, "Option A looks plausible; option D matches the last three movies better. Answer: D", 3),
    (tuple(str(i) for i in range(10)), "The answer is 2 at first glance, yet candidate 7 shares the director. "
                                       "Final answer: 7", 7),
])
def test_a_reply_with_two_explicit_answers_is_read_at_its_last(labels, text, expected):
    assert parse_choice(text, labels, CANDS) == expected
