"""A ground-truth measure added by docs/extending.md's recipe is audited by the gold recipe its
registry entry declares: with every gold moved one slot off its artifact's answer, it fails."""

import pandas as pd
import pytest

from lrworld.audit.report import audit_dataset
from lrworld.groundtruth.questions import from_table
from lrworld.questions import measures
from lrworld.questions.measures import HIT10, TABLE, Gold, Measure
from tests.support.fixtures_audit import INTER, ITEMS_X

TOY = Measure("toy_cooc", ("product", "movie"), "personalization", "toy co-occurrence", HIT10,
              "lrworld.groundtruth.toy:build_questions", artifact="toy_pairs", gold=Gold(TABLE, "item", "item", "count"))


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(measures, "MEASURES", measures.MEASURES + (TOY,))
    monkeypatch.setitem(measures.REGISTRY._entries, TOY.id, TOY)
    return TOY


def _pairs():
    """Targets 1..3: the answer is the next item (count 3.0), nine others count 0..."""
    rows = []
    for t in ("1", "2", "3"):
        answer = str(int(t) + 3)
        others = [i for i in ITEMS_X["item_id"] if i not in (t, answer)][:9]
        rows.append({"target": t, "candidate": answer, "is_answer": True, "count": 3.0})
        rows += [{"target": t, "candidate": o, "is_answer": False, "count": k / 10} for k, o in enumerate(others)]
    return pd.DataFrame(rows)


def _audit(qs, pairs):
    questions = {"toy_cooc": ("results/questions/d/toy_cooc.jsonl", qs)}
    return audit_dataset("d", "movie", questions, [], {}, INTER, ITEMS_X, {}, {"toy_pairs": pairs})[1]


def test_a_recipe_measure_with_every_gold_moved_fails_its_audit(toy):
    pairs = _pairs()
    qs, _ = from_table(INTER, pairs, "count", "toy_cooc", "item", "item", 3, 0, "d")
    assert len(qs) == 3 and _audit(qs, pairs) == []
    moved = [dict(q, answer_index=(q["answer_index"] + 1) % 10) for q in qs]
    v = _audit(moved, pairs)
    assert {x.qid for x in v if x.check == "gold_differs_from_artifact"} == {q["qid"] for q in qs}
    # the question's own evidence moved with it (answer and scores swapped): the artifact still tells
    swapped = []
    for q in qs:
        a, b = q["answer_index"], (q["answer_index"] + 1) % 10
        ev = list(q["evidence"]["count"])
        ev[a], ev[b] = ev[b], ev[a]
        swapped.append(dict(q, answer_index=b, evidence={"count": ev}))
    assert {x.check for x in _audit(swapped, pairs)} == {"gold_differs_from_artifact"}


def test_a_measure_with_an_artifact_and_no_gold_recipe_is_refused():
    with pytest.raises(ValueError, match="'toy_cooc': its answers come from artifact 'toy_pairs', so it declares"):
        measures.check_gold(Measure("toy_cooc", ("movie",), "personalization", "toy", HIT10, "x:y",
                                    artifact="toy_pairs"))
    assert measures.check_gold(TOY) is TOY
