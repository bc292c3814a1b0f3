"""Matched distractors and the gold-share cap on hand-made pools: the gold's rank among its
options by count (and by words shared with a history) is uniform, the picks come from the pool
nearest the gold's rank, the cap counts."""

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


def test_a_gold_with_too_few_entities_on_one_side_is_refused_whatever_was_drawn_or_as_drawn():
    ranks = Ranks(COUNTS, COUNTS)
    # 2 entities above e197: never 3 distractors above it, so every draw refuses it (a refusal that
    # hung on the draw would keep the draws that put it on top)
    pool = [e for e in COUNTS if e != "e197"]
    assert all(matched(pool, "e197", 3, ranks, rng_for(0, "top", q), every_draw=True) is None for q in range(100))
    # 3 above e196: every draw is kept, the gold's place uniform over 0..3
    pool = [e for e in COUNTS if e != "e196"]
    places = Counter(sum(COUNTS[n] > 196 for n in matched(pool, "e196", 3, ranks, rng_for(0, "top", q),
                                                         every_draw=True)[0]) for q in range(400))
    assert set(places) == {0, 1, 2, 3} and all(70 < c < 130 for c in places.values()), places
    # without every_draw (a pool of a few values): refused only when the drawn side runs short
    pool = [e for e in COUNTS if e != "e197"]
    kept = [o for o in (matched(pool, "e197", 3, ranks, rng_for(0, "top", q)) for q in range(200)) if o]
    assert 120 < len(kept) < 180 and all(sum(COUNTS[n] > 197 for n in negs) < 3 for negs, _ in kept)  # m < 3: 3 in 4


def test_with_an_overlap_full_of_ties_a_rule_breaking_ties_at_random_finds_the_gold_at_most_at_chance():
    ranks = Ranks(COUNTS, COUNTS)
    gold, pool = "e101", [e for e in COUNTS if e != "e101"]
    # words shared with a history: mostly 0 or 1, the gold sharing 1, independent of the count
    words = {e: (0, 1, 1, 2, 0)[i % 5] for i, e in enumerate(COUNTS)}

    def at_random(overlap_of, tag, n):
        """The gold's chance under "most words shared, ties at random", and its places by count."""
        found, by_count = [], Counter()
        for q in range(n):
            rng = rng_for(0, tag, q)
            order = [pool[i] for i in rng.permutation(len(pool))]
            got = matched(order, gold, 9, ranks, rng, overlap=overlap_of(order, rng))
            if got is None:  # the pool cannot fill the drawn pair of counts
                continue
            values = [words[gold]] + [words[n] for n in got[0]]
            top = [i for i, v in enumerate(values) if v == max(values)]
            found.append((0 in top) / len(top))
            by_count[sum(COUNTS[n] > COUNTS[gold] for n in got[0])] += 1
        return sum(found) / len(found), len(found), by_count

    chance, kept, by_count = at_random(lambda order, rng: Ranks(words, [gold, *order]), "o", 2000)
    # at most chance (1 in 10): a tie sits on both sides, the gold shares the top with its ties
    assert 0.04 < chance < 0.11 and kept > 1800, (chance, kept)
    assert len(by_count) == 10 and all(kept / 10 * 0.75 < c < kept / 10 * 1.25 for c in by_count.values())


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
    # a pool whose texts are all shorter than the gold's: the nearest count of longer ones it can fill (none)
    short = Ranks({e: 0 if e != gold else 99 for e in COUNTS}, COUNTS)
    fallbacks = Counter()
    got = [matched(pool, gold, 9, ranks, rng_for(0, "s", q), lengths=short, fallbacks=fallbacks) for q in range(50)]
    assert all(g is not None for g in got) and not fallbacks
    assert Counter(sum(COUNTS[n] > COUNTS[gold] for n in negs) for negs, _ in got).keys() > {0, 9}
