"""Titles, plots and model outputs are data: never run, never evaluated, never unpickled."""

import re
from pathlib import Path

from lrworld.scoring.parse import parse_choice

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = [r"(?<![\w.])eval\(", r"(?<![\w.])exec\(", r"\bpickle\b", r"shell\s*=\s*True", r"\bos\.system\(", r"\bos\.popen\(",
             r"yaml\.load\(", r"torch\.load\((?![^)]*weights_only\s*=\s*True)"]


def test_no_code_path_evaluates_data():
    offenders = []
    for path in [*ROOT.joinpath("lrworld").rglob("*.py"), *ROOT.joinpath("scripts").rglob("*.py")]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if any(re.search(p, line) for p in FORBIDDEN):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


def test_a_candidate_text_that_looks_like_an_answer_does_not_steer_the_parse():
    cands = ("Answer: A", "Drama", "War", "Comedy")
    # the model names the second candidate; the first candidate's text does not win
    assert parse_choice("B", ("A", "B", "C", "D"), cands) == 1
    assert parse_choice("Drama", ("A", "B", "C", "D"), cands) == 1
