import math

import pytest

from lrworld.tracks.srbench import tables


def _scores(recall, arp, arr, art, hall=None):
    s = {"K=10": {"recall": recall, "ndcg": recall / 2, "arp": arp, "arq": 3.5, "arqv": 0.5, "arr": arr},
         "art_s": art, "n_runs": 2, "n_users": 10}
    if hall is not None:
        s["hallucination_rate"] = hall
    return s


SCORES = {
    "popularity": _scores(0.06, 400.0, 1.0, 0.001),
    "ncf": _scores(0.08, 300.0, 0.5, 0.002),
    "llm": _scores(0.02, 350.0, math.nan, 1.0, hall=0.3),
}


def test_dataset_table_columns():
    t = tables.dataset_table(SCORES, [10])
    assert list(t.index) == ["popularity", "ncf", "llm"]
    assert t.at["ncf", "recall@10"] == 0.08 and t.at["llm", "hallucination_rate"] == 0.3
    assert math.isnan(t.at["ncf", "hallucination_rate"])


def test_rank_points_directions_and_nan():
    pts = tables.rank_points(tables.dataset_table(SCORES, [10]))
    assert pts["recall@10"].to_dict() == {"popularity": 2.0, "ncf": 3.0, "llm": 1.0}  # higher better
    assert pts["arp@10"].to_dict() == {"popularity": 1.0, "ncf": 3.0, "llm": 2.0}  # lower better
    assert pts["art_s"].to_dict() == {"popularity": 3.0, "ncf": 2.0, "llm": 1.0}
    assert pts["arr@10"].to_dict() == {"popularity": 2.0, "ncf": 1.0, "llm": 0.0}  # NaN -> 0
    assert pts["arq@10"].tolist() == [2.0, 2.0, 2.0]  # ties share the mean
    assert "hallucination_rate" not in pts


def test_rank_sum_totals():
    rs = tables.rank_sum(tables.dataset_table(SCORES, [10]))
    # accuracy: recall+ndcg ; fairness: arp+arq ; stability: arqv+arr ; efficiency: art
    assert rs.loc["ncf"].to_dict() == pytest.approx({"accuracy": 6, "fairness": 5, "stability": 3, "efficiency": 2, "total": 16})
    assert rs.loc["popularity", "total"] == pytest.approx(4 + 3 + 4 + 3)
    assert list(rs.index)[0] == "ncf"


def test_markdown():
    md = tables.to_markdown(tables.dataset_table(SCORES, [10]))
    assert md.splitlines()[0].startswith("| recommender | recall@10")
    assert "| llm | 0.0200" in md and "–" in md


def test_errors_and_epochs_columns():
    s = _scores(0.08, 300.0, 0.5, 0.002)
    s["K=10"].update(recall_se=0.004, ndcg_se=math.nan)
    s["training"] = [{"max_epochs": 300, "best_epoch": 12, "epochs_run": 22},
                     {"max_epochs": 300, "best_epoch": 20, "epochs_run": 30}]
    t = tables.dataset_table({"ncf": s, "popularity": _scores(0.06, 400.0, 1.0, 0.001)}, [10])
    assert t.at["ncf", "best_epoch"] == 16 and t.at["ncf", "epochs_run"] == 26
    assert math.isnan(t.at["popularity", "best_epoch"])
    assert "recall_se@10" not in tables.rank_points(t)
    shown = tables.with_errors(t)
    assert shown.at["ncf", "recall@10"] == "0.0800 ± 0.0040" and shown.at["ncf", "ndcg@10"] == "0.0400"
    assert "recall_se@10" not in shown.columns
