"""Matched distractors and the gold-share cap on hand-made pools: the gold's rank among its
options by count is uniform, the picks come from the pool nearest the gold's rank, the cap counts."""

from collections import Counter

import numpy as np
import pytest

from lrworld.core.seeding import rng_for
from lrworld.questions.distractors import BAND, Debias, GoldCap, Ranks, matched

COUNTS = {f"e{i}": i for i in range(200)}  # e199 the most counted


def test_the_golds_rank_among_its_options_is_uniform():
    ranks = Ranks(COUNTS, COUNTS)
    gold, pool = "e100", [e for e in COUNTS if e != "e100"]
    places = Counter()
    for q in range(2000):
        rng = rng_for(0, "t", q)
        negs, rejected = matched([pool[i] for i in rng.permutation(len(pool))], gold, 9, ranks, rng)
        assert len(set(negs)) == 9 and gold not in negs and rejected == 0
        places[sum(COUNTS[n] > COUNTS[gold] for n in negs)] += 1
        # the picks are the gold's neighbours by rank: within a band or two of it
        assert max(abs(ranks.share[n] - ranks.share[gold]) for n in negs) < 3 * BAND
    assert set(places) == set(range(10)) and all(150 < c < 250 for c in places.values())


def test_a_gold_with_too_few_entities_on_the_drawn_side_is_refused():
    ranks = Ranks(COUNTS, COUNTS)
    pool = [e for e in COUNTS if e != "e199"]
    outcomes = [matched(pool, "e199", 3, ranks, rng_for(0, "top", q)) for q in range(200)]
    kept = [o for o in outcomes if o is not None]
    # only m = 0 (every distractor below) is possible for the most counted entity: 1 draw in 4
    assert 30 < len(kept) < 70 and all(max(COUNTS[n] for n in negs) < 199 for negs, _ in kept)


def test_a_key_rejects_look_alikes():
    ranks = Ranks(COUNTS, COUNTS)
    key = {e: str(COUNTS[e] // 2) for e in COUNTS}.get  # e2k and e2k+1 read the same
    negs, rejected = matched([e for e in COUNTS if e != "e50"], "e50", 9, ranks, rng_for(1, "k"), key, [key("e50")])
    assert len({key(n) for n in negs}) == 9 and key("e50") not in {key(n) for n in negs} and rejected >= 1


def test_gold_cap_and_the_config():
    assert Debias().cap(50, "hit10") is None and Debias("matched", 0.02).cap(50, "mcq") == 1
    assert Debias("uniform", 0.1).cap(50, "hit10") == 5
    # one share per question type; a type left out has no cap
    per_type = Debias("matched", {"mcq": 0.1, "hit10": 0.02})
    assert (per_type.cap(50, "mcq"), per_type.cap(50, "hit10")) == (5, 1)
    assert Debias("matched", {"mcq": 0.1}).cap(50, "hit10") is None
    with pytest.raises(ValueError, match="hit1"):
        Debias("matched", {"hit1": 0.1})
    cap = GoldCap(Debias(max_gold_share=0.05).cap(40, "hit10"))
    for g in "aaab":
        if not cap.full(g):
            cap.take(g)
    assert cap.taken == Counter({"a": 2, "b": 1}) and cap.dropped == 1
    with pytest.raises(ValueError, match="questions.distractors"):
        Debias("popular")
    assert np.isclose(Ranks({"x": 1, "y": 5}, ["x", "y", "z"]).share["y"], 1.0)


def test_with_lengths_the_golds_rank_by_text_length_is_uniform_too_or_the_fallback_is_counted():
    ranks = Ranks(COUNTS, COUNTS)
    # text length independent of count: e_i's length cycles through 40 values
    lengths = Ranks({e: (i * 7) % 40 for i, e in enumerate(COUNTS)}, COUNTS)
    gold, pool = "e100", [e for e in COUNTS if e != "e100"]
    by_count, by_length, fallbacks = Counter(), Counter(), Counter()
    for q in range(2000):
        rng = rng_for(0, "t", q)
        negs, _ = matched([pool[i] for i in rng.permutation(len(pool))], gold, 9, ranks, rng, lengths=lengths,
                          fallbacks=fallbacks)
        assert len(set(negs)) == 9 and gold not in negs
        by_count[sum(COUNTS[n] > COUNTS[gold] for n in negs)] += 1
        by_length[sum(lengths.count[n] > lengths.count[gold] for n in negs)] += 1
    assert not fallbacks
    assert all(150 < c < 250 for c in by_count.values()) and len(by_count) == 10
    # ties in length (5 entities per length) make "longer" a little rarer than "at least as long"
    assert len(by_length) == 10 and all(100 < c < 320 for c in by_length.values()), by_length
    # a pool whose texts are all shorter than the gold's: popularity alone, counted
    short = Ranks({e: 0 if e != gold else 99 for e in COUNTS}, COUNTS)
    fallbacks = Counter()
    got = [matched(pool, gold, 9, ranks, rng_for(0, "s", q), lengths=short, fallbacks=fallbacks) for q in range(50)]
    assert all(g is not None for g in got) and 0 < fallbacks["matched_length_fallback"] <= 50
