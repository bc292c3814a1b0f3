from collections import Counter

from lrworld.models import PromptItem, make_backend


def test_uniform_and_stable_per_question():
    b = make_backend("random", {"backend": "random", "seed": 3})
    items = [PromptItem(qid=f"q{i}", prompt="p", labels=("A", "B", "C", "D")) for i in range(4000)]
    first = b.answer(items)
    counts = Counter(r.raw_text for r in first)
    assert set(counts) == {"A", "B", "C", "D"} and all(900 < c < 1100 for c in counts.values())
    # the same question gets the same pick whatever else is in the batch
    assert b.answer(items[10:11])[0].raw_text == first[10].raw_text
    assert all(r.choice_index == "ABCD".index(r.raw_text) for r in first)
