import numpy as np
from scipy.stats import chisquare

from lrworld.models.base import PromptItem
from lrworld.models.backends.random import RandomBackend

KEYS = {"qid", "dataset", "measure", "qtype", "context", "candidates", "candidate_kind", "answer_index",
        "seed", "evidence"}
KIND = {"assoc_rule": "item", "mem_item_item": "item", "mem_user_user": "user", "neu_item2users": "user",
        "neu_user2items": "item"}
LABELS = tuple("ABCDEFGHIJ")


def test_record_shape(ml100k_questions):
    for measure, qs in ml100k_questions.items():
        assert len(qs) == 200, measure
        assert len({q["qid"] for q in qs}) == len(qs)
        for q in qs:
            assert set(q) == KEYS
            assert q["measure"] == measure and q["qtype"] == "hit10" and q["dataset"] == "ml-100k"
            assert q["qid"].startswith(f"ml-100k/{measure}/")
            assert q["candidate_kind"] == KIND[measure]
            assert len(q["candidates"]) == 10 == len(set(q["candidates"]))
            assert all(isinstance(c, str) for c in q["candidates"])
            assert 0 <= q["answer_index"] < 10
            if KIND[measure] == "user":
                assert set(q["context"]["candidate_histories"]) == set(q["candidates"])
            if "target_user" in q["context"]:
                assert len(q["context"]["history"]) == 10
                if KIND[measure] == "user":
                    assert q["context"]["target_user"] not in q["candidates"]


def test_answer_slot_is_uniform(ml100k_questions):
    all_slots = []
    for measure, qs in ml100k_questions.items():
        slots = np.bincount([q["answer_index"] for q in qs], minlength=10)
        assert chisquare(slots).pvalue > 0.001, (measure, slots)
        all_slots += [q["answer_index"] for q in qs]
    assert chisquare(np.bincount(all_slots, minlength=10)).pvalue > 0.01


def test_random_backend_scores_about_one_in_ten(ml100k_questions):
    backend = RandomBackend("random", {"seed": 0})
    total = []
    for measure, qs in ml100k_questions.items():
        items = [PromptItem(qid=q["qid"], prompt="", labels=LABELS) for q in qs]
        hits = [r.choice_index == q["answer_index"] for r, q in zip(backend.answer(items), qs)]
        assert abs(np.mean(hits) - 0.1) < 4 * np.sqrt(0.09 / len(qs)), measure
        total += hits
    assert abs(np.mean(total) - 0.1) < 3 * np.sqrt(0.09 / len(total))


def test_builders_are_deterministic(ml100k, ml100k_pairs):
    from lrworld.groundtruth.questions import build_mem_item_item_questions

    a, _ = build_mem_item_item_questions(ml100k[0], ml100k_pairs, 20, 5, "x")
    b, _ = build_mem_item_item_questions(ml100k[0], ml100k_pairs, 20, 5, "x")
    assert a == b
