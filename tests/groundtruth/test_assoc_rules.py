import numpy as np
import pandas as pd
import pytest
from mlxtend.frequent_patterns import apriori, association_rules

from lrworld.data.contract import finalize_interactions
from lrworld.groundtruth.rules import canonical_rules, mine_rules
from lrworld.groundtruth.transactions import transaction_matrix


def _inter(rows):
    df = pd.DataFrame(rows, columns=["user_id", "item_id", "timestamp"])
    df["rating"] = 1.0
    return finalize_interactions(df, "fixture")


@pytest.fixture
def four_tx():
    # window=2 -> transactions {a,b}, {a,c} (user 1) and {a,b}, {b,c} (user 2)
    return _inter([("1", "a", 1), ("1", "b", 2), ("1", "a", 3), ("1", "c", 4),
                   ("2", "a", 1), ("2", "b", 2), ("2", "b", 3), ("2", "c", 4)])


def test_transactions_are_windows_of_each_history(four_tx):
    X, ids, users = transaction_matrix(four_tx, window=2)
    sets = [set(ids[X[r].indices]) for r in range(X.shape[0])]
    assert sets == [{"a", "b"}, {"a", "c"}, {"a", "b"}, {"b", "c"}]
    assert list(users) == ["1", "1", "2", "2"]
    X, ids, users = transaction_matrix(four_tx, window=None)
    assert [set(ids[X[r].indices]) for r in range(2)] == [{"a", "b", "c"}] * 2
    X, _, _ = transaction_matrix(four_tx, window=3)  # last window shorter
    assert X.shape[0] == 4 and list(np.diff(X.indptr)) == [2, 1, 2, 1]


def test_hand_computed_support_confidence_lift(four_tx):
    rules, stats = mine_rules(four_tx, min_support=0.5, min_confidence=0.5, max_len=2, window=2)
    assert stats["n_transactions"] == 4
    # supports: a 3/4, b 3/4, c 2/4, ab 2/4 (ac, bc 1/4 are infrequent)
    assert rules["antecedents"].tolist() == [["a"], ["b"]]
    assert rules["consequents"].tolist() == [["b"], ["a"]]
    assert np.allclose(rules["support"], 0.5)
    assert np.allclose(rules["confidence"], 2 / 3)
    assert np.allclose(rules["lift"], 0.5 / (0.75 * 0.75))
    rules, _ = mine_rules(four_tx, min_support=0.25, min_confidence=0.6, max_len=2, window=2)
    got = {(tuple(a), tuple(c)): cf for a, c, cf in zip(rules.antecedents, rules.consequents, rules.confidence)}
    # c -> a: supp(ac)/supp(c) = (1/4)/(2/4) = 0.5 < 0.6 is absent; a -> b, b -> a 2/3 present
    assert got == pytest.approx({(("a",), ("b",)): 2 / 3, (("b",), ("a",)): 2 / 3})


def test_rules_equal_dense_apriori_on_ml100k(ml100k, ml100k_rules):
    rules, stats = ml100k_rules
    assert stats["n_rules"] == len(rules) > 500 and stats["algorithm"] == "hmine"
    X, ids, _ = transaction_matrix(ml100k[0], window=20)
    dense = pd.DataFrame(X.toarray(), columns=[str(i) for i in ids])  # plain one-hot, every item
    fi = apriori(dense, min_support=0.01, use_colnames=True, max_len=3)
    ref = canonical_rules(association_rules(fi, num_itemsets=len(dense), metric="confidence",
                                            min_threshold=0.01))
    assert rules["antecedents"].tolist() == ref["antecedents"].tolist()
    assert rules["consequents"].tolist() == ref["consequents"].tolist()
    for col in ["support", "confidence", "lift"]:
        np.testing.assert_allclose(rules[col].to_numpy(), ref[col].to_numpy(), rtol=1e-12)
    assert rules["antecedents"].map(len).max() == 2  # max_len 3 -> antecedents of up to 2 items
    assert (rules["support"] >= 0.01).all() and (rules["confidence"] >= 0.01).all()


@pytest.mark.parametrize("algorithm", ["apriori", "fpgrowth"])
def test_every_algorithm_gives_the_same_rules(four_tx, algorithm):
    a, _ = mine_rules(four_tx, min_support=0.25, min_confidence=0.1, max_len=3, window=2, algorithm=algorithm)
    h, _ = mine_rules(four_tx, min_support=0.25, min_confidence=0.1, max_len=3, window=2)  # hmine
    pd.testing.assert_frame_equal(a, h)
    assert len(a) == 6  # ab, ac, bc each give two single-item rules


def test_fpgrowth_equals_hmine_on_ml100k(ml100k, ml100k_rules):
    f, _ = mine_rules(ml100k[0], min_support=0.01, min_confidence=0.01, max_len=3, window=20, algorithm="fpgrowth")
    pd.testing.assert_frame_equal(f[["antecedents", "consequents"]], ml100k_rules[0][["antecedents", "consequents"]])
    np.testing.assert_allclose(f[["support", "confidence", "lift"]], ml100k_rules[0][["support", "confidence", "lift"]],
                               rtol=1e-12)


def test_assoc_questions_are_valid(ml100k, ml100k_rules, ml100k_questions):
    rules = ml100k_rules[0]
    by_ant = {}
    for a, c in zip(rules.antecedents, rules.consequents):
        by_ant.setdefault(tuple(a), set()).update(c)
    items = set(ml100k[0]["item_id"])
    for q in ml100k_questions["assoc_rule"]:
        ant = tuple(q["context"]["antecedents"])
        ans = q["candidates"][q["answer_index"]]
        assert ans in by_ant[ant]
        negs = [c for i, c in enumerate(q["candidates"]) if i != q["answer_index"]]
        assert not set(negs) & (by_ant[ant] | set(ant))  # no known consequent, no antecedent item
        assert set(negs) <= items
        conf = q["evidence"]["candidate_confidence"]
        assert conf[q["answer_index"]] == pytest.approx(q["evidence"]["confidence"])
        assert q["evidence"]["lift"] > 1
