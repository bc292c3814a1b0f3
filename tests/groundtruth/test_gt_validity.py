"""Validity of the HitRate@1 builders and their artifacts: each test fails if its rule is undone."""

import numpy as np
import pandas as pd

from lrworld.data.contract import finalize_interactions
from lrworld.groundtruth import questions as Q
from lrworld.groundtruth.similarity import similar_pairs
from lrworld.prompts.render import item_keys


def _table(n_targets=40, kind="item"):
    """An artifact shaped like similar_pairs' output: answer row first, 9 negatives per target."""
    rows = []
    for t in range(n_targets):
        cands = [f"c{t}_{j}" for j in range(10)]
        for j, c in enumerate(cands):
            rows.append({"kind": kind, "target": f"t{t}", "candidate": c, "similarity": 1.0 - j / 10,
                         "is_answer": j == 0, "n_positives": 1, "negative_cutoff": 0.5, "negative_rule": "below_threshold",
                         "measure": "", "cosine": 1.0 - j / 10, "cluster": 0, "centroid_distance": 0.0,
                         "seeds_agreeing": 1, "min_margin": 0.0})
    return pd.DataFrame(rows)


def test_four_table_measures_with_one_seed_do_not_share_a_slot_sequence():
    """Before: _from_table seeded np.random.default_rng(seed), so the four measures put their answers in
    the same slots (466616004043767430683988416320 on every dataset)."""
    inter = pd.DataFrame({"user_id": ["u"], "item_id": ["i"], "timestamp": [0]})
    table = _table()
    seqs = {}
    for m, fn in [("mem_item_item", Q.build_mem_item_item_questions), ("mem_user_user", Q.build_mem_user_user_questions),
                  ("neu_item2users", Q.build_neu_item2users_questions),
                  ("neu_user2items", Q.build_neu_user2items_questions)]:
        t = table.assign(kind="user" if m == "mem_user_user" else "item", measure=m)
        qs, _ = fn(inter, t, 40, 2024, "ml100k")
        seqs[m] = "".join(str(q["answer_index"]) for q in qs)
    assert len(set(seqs.values())) == 4, seqs
    other, _ = Q.build_mem_item_item_questions(inter, table, 40, 2024, "ml1m")
    assert "".join(str(q["answer_index"]) for q in other) != seqs["mem_item_item"]


def test_item_targets_never_get_a_user_who_met_the_item(ml100k, ml100k_questions):
    """neu_item2users: a negative user who already interacted with the target item would read as
    correct; the pool leaves out every user of the target item."""
    inter = ml100k[0]
    users_of = inter.groupby("item_id")["user_id"].agg(set)
    leaks = [(q["qid"], c) for q in ml100k_questions["neu_item2users"] for c in q["candidates"]
             if c in users_of[q["context"]["target_item"]]]
    assert leaks == []


def test_user_targets_never_get_an_item_of_their_history(ml100k, ml100k_questions):
    history = ml100k[0].groupby("user_id")["item_id"].agg(set)
    for q in ml100k_questions["neu_user2items"]:
        assert not set(q["candidates"]) & history[q["context"]["target_user"]]


def _twins():
    """Items 'a' and 'b' are one film listed twice (as ML-100K does 18 times); 'a' is everyone's top."""
    items = pd.DataFrame({"item_id": list("abcdefghijklmn"), "title": ["Twin"] * 2 + [f"Film {x}" for x in "cdefghijklmn"],
                          "year": [1997] * 14})
    rows = [(f"u{k}", i, t) for k in range(12) for t, i in enumerate("ac" + "defghijklmn"[k % 11])] + [("z", "b", 0)]
    inter = finalize_interactions(pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]), "fx")
    return inter, items


def test_similar_pairs_never_draw_a_look_alike_of_the_answer():
    # c's most similar item is a (same four users); a's twin b is in c's negative pool
    rows = [(f"u{k}", i, 0) for k in range(4) for i in "ac"]
    rows += [(f"v{k}", i, 0) for k, x in enumerate("defg") for i in ("b", x)]
    rows += [(f"w{k}", x, 0) for k, x in enumerate("hij")]
    inter = finalize_interactions(pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]), "fx")
    items = pd.DataFrame({"item_id": list("abcdefghij"), "title": ["Twin", "Twin"] + list("cdefghij"), "year": 1997})
    display = item_keys(items)
    rejected = 0
    for seed in range(20):
        pairs, stats = similar_pairs(inter, "item", 20, threshold=0.9, seed=seed, min_degree=1, n_candidates=4,
                                     dataset="fx", display=display, fallback_quantile=None)
        for _, g in pairs.groupby("target"):
            shown = [display[c] for c in g["candidate"]]
            assert len(set(shown)) == len(shown)
        rejected += stats["negatives_rejected_same_text"]
    assert rejected > 0


def test_assoc_rule_never_shows_two_options_that_read_the_same():
    inter, items = _twins()
    display = item_keys(items)
    rules = pd.DataFrame({"antecedents": [["c"]], "consequents": [["a"]], "support": [0.5], "confidence": [0.6],
                          "lift": [1.5]})
    total = 0
    for seed in range(40):
        (q,), rep = Q.build_assoc_rule_questions(inter, rules, 1, seed, "fx", display=display)
        assert not {"a", "b"} <= set(q["candidates"])
        total += rep.get("negatives_rejected_same_text", 0)
    assert total > 0
    # without display keys both twins are options of some question
    assert any({"a", "b"} <= set(Q.build_assoc_rule_questions(inter, rules, 1, s, "fx")[0][0]
                                 ["candidates"]) for s in range(40))


def test_table_questions_whose_users_read_the_same_are_dropped_and_counted():
    # two candidate users whose five most recent items are the same films: the prompt would show two
    # identical options
    items = pd.DataFrame({"item_id": [str(i) for i in range(20)], "title": [f"F{i}" for i in range(20)],
                          "year": [2000] * 20})
    rows = [(u, str(i), t) for u in ("x", "y") for t, i in enumerate(range(5))]
    rows += [(f"z{k}", str(5 + k), 0) for k in range(9)]
    inter = finalize_interactions(pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"]), "fx")
    table = pd.DataFrame({"kind": "user", "target": "t", "candidate": ["x", "y"] + [f"z{k}" for k in range(8)],
                          "similarity": np.linspace(1, 0, 10), "is_answer": [True] + [False] * 9, "n_positives": 1,
                          "negative_cutoff": 0.5, "negative_rule": "below_threshold"})
    inter = pd.concat([inter, pd.DataFrame({"user_id": ["t"], "item_id": ["19"], "timestamp": [0]})])
    qs, rep = Q.build_mem_user_user_questions(inter, table, 1, 0, "fx", display=item_keys(items))
    assert qs == [] and rep["dropped_same_text"] == 1
