"""The validity controls' findings as the audit logs them: the learned answerer above chance, then a
construction whose filter could not pass."""

from lrworld.audit import validity


def _learned(correct, above):
    return {"correct": correct, "n": 50, "score": correct / 50, "ci_low": 0.2, "ci_high": 0.5, "chance": 0.1,
            "leans_on": ["log_interactions", "slot"], "above_chance": above}


def test_the_learned_and_construction_findings_name_their_measure_and_figures():
    learned = {"assoc_rule": _learned(17, True), "mem_item_item": _learned(5, False)}
    positive = {"assoc_rule": {"answerable": True}, "mem_item_item": {"answerable": False}}
    reports = {"mem_item_item": {"validity": {"passes": False}}, "assoc_rule": {"validity": {"passes": True}}}
    result = validity.controls(learned, positive, {}, reports)
    assert result["measures"]["assoc_rule"]["findings"] == ["learned"]
    assert result["measures"]["mem_item_item"]["findings"] == ["construction"]
    assert validity.finding_lines("ml", result) == [
        "ml/assoc_rule: the learned knowledge-free answerer answers 17 of 50 (0.34 [0.20, 0.50]) against chance "
        "0.10, leaning on log_interactions, slot: the measure can be passed without its knowledge",
        "ml/mem_item_item: the construction's filter could not bring every knowledge-free answerer to chance "
        "(results/questions/ml/mem_item_item.report.json, validity)"]
