"""Titles, plots and model outputs are data: never run, never evaluated, never unpickled."""

import re
from pathlib import Path

from lrworld.scoring.parse import parse_choice

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = [r"(?<![\w.])eval\(", r"(?<![\w.])exec\(", r"\bpickle\b", r"shell\s*=\s*True", r"\bos\.system\(", r"\bos\.popen\(",
             r"yaml\.load\(", r"torch\.load\((?![^)]*weights_only\s*=\s*True)"]
# The one module that reads pickles: LLaRA's released rec models are whole pickled objects, read by
# an unpickler that resolves only an allow-list of classes (tests/tracks/llara/test_hybrid_released.py
# shows a pickle that would run code refused there)
RESTRICTED_UNPICKLER = "lrworld/tracks/llara/hybrid/pickles.py"


def test_no_code_path_evaluates_data():
    offenders = []
    for path in [*ROOT.joinpath("lrworld").rglob("*.py"), *ROOT.joinpath("scripts").rglob("*.py")]:
        if path.relative_to(ROOT).as_posix() == RESTRICTED_UNPICKLER:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if any(re.search(p, line) for p in FORBIDDEN):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


def test_a_candidate_text_that_looks_like_an_answer_does_not_steer_the_parse():
    cands = ("Answer: A", "Drama", "War", "Comedy")
    # the model names the second candidate; the first candidate's text does not win
    assert parse_choice("B", ("A", "B", "C", "D"), cands) == 1
    assert parse_choice("Drama", ("A", "B", "C", "D"), cands) == 1
