"""Excluded values are never shown, inside item texts either ("Man of Tai Chi (2013) [Action,
IMAX]" reached 71, 27 and 74 of 200 ml-latest-small prompts of assoc_rule, mem_item_item,
neu_user2items)."""

import pandas as pd

from lrworld.prompts.variants import render_variant_all

ITEMS = pd.DataFrame({"item_id": [str(i) for i in range(1, 12)],
                      "title": ["Man of Tai Chi"] + [f"Film {i}" for i in range(2, 12)], "year": 2013,
                      "genres": [["Action", "IMAX"]] + [["Drama", "imax"]] * 5 + [["Comedy"]] * 5})
Q = {"qid": "d/mem_item_item/2", "dataset": "d", "measure": "mem_item_item", "qtype": "hit10",
     "context": {"target_item": "2"}, "candidate_kind": "item", "candidates": [str(i) for i in [1, *range(3, 12)]],
     "answer_index": 0}
QA = dict(Q, qid="d/assoc_rule/2+3->1", measure="assoc_rule", context={"antecedents": ["2", "3"]},
          candidates=["1"] + [str(i) for i in range(4, 12)])
EX = {"genres": ["IMAX", "(no genres listed)"]}


def test_imax_is_not_shown_in_item_texts_of_hit10_prompts(tmp_path):
    template = tmp_path / "t.txt"
    template.write_text("History:\n${history}\nTarget: ${target}\nCandidates:\n${candidates}\n")
    # as before, without the exclusion
    assert "Man of Tai Chi (2013) [Action, IMAX]" in render_variant_all([Q], template, ITEMS, "zero_shot")[0]["prompt"]
    for variant in ("zero_shot", "shuffle1"):
        shown = render_variant_all([Q], template, ITEMS, variant, seed=1, exclude_values=EX)[0]["prompt"]
        assert "Man of Tai Chi (2013) [Action]" in shown and "Target: Film 2 (2013) [Drama]" in shown, shown
        assert "imax" not in shown.casefold()
    hist = render_variant_all([QA], template, ITEMS, "zero_shot", exclude_values=EX)[0]["prompt"]
    assert "History:\n1. Film 2 (2013) [Drama]\n2. Film 3 (2013) [Drama]" in hist and "IMAX" not in hist
