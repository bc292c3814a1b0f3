from lrworld.questions.shortfall import shortfall, targets_tried


def test_a_short_neural_measure_says_why():
    # neu_user2items on a set the project never saw: 137 of 200, the artifact visited 400 targets
    rep = {"requested": 200, "questions": 137, "candidates_considered": 400, "targets_in_artifact": 400,
           "dropped_margin": 201, "dropped_seed_disagreement": 62, "dropped_same_text": 0}
    assert targets_tried(rep) == 400
    assert shortfall(rep) == {"requested": 200, "questions": 137, "targets_tried": 400,
                              "reason": "137 of 200 questions: 400 targets tried (dropped_margin 201, "
                                        "dropped_seed_disagreement 62)"}


def test_a_short_knowledge_measure_lists_its_skips_and_a_full_one_has_no_mark():
    rep = {"requested": 900, "questions": 850, "windows_examined": 943,
           "skipped": {"positive_has_no_value": 57, "sources_disagree": 36}}
    assert shortfall(rep)["reason"] == ("850 of 900 questions: 943 targets tried (positive_has_no_value 57, "
                                        "sources_disagree 36)")
    assert shortfall({**rep, "requested": 850}) is None and shortfall({**rep, "requested": None}) is None
