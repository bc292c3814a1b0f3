"""Hand-made question and prompt records for the audit's tests: one valid question per measure
kind, which a test edits to violate one check."""

import copy

import pandas as pd

from lrworld.prompts.render import ItemTexts, render

TEMPLATE = "History:\n${history}\nTarget: ${target}\nOptions:\n${candidates}\nAnswer:"
ITEMS = pd.DataFrame({"item_id": [str(i) for i in range(1, 13)], "title": [f"Film {i}" for i in range(1, 13)],
                      "year": [2000] * 12, "genres": [["Drama"]] * 5 + [["Drama", "War"]] + [["Comedy"]] * 6})
# user u watched 1..6 (6 last); user v watched 7..12; item 12 was also watched by w; z watched 1 and 2
INTER = pd.DataFrame({"user_id": ["u"] * 6 + ["v"] * 6 + ["w", "z", "z"],
                      "item_id": [str(i) for i in range(1, 13)] + ["12", "1", "2"],
                      "rating": 4.0, "timestamp": list(range(6)) * 2 + [0, 0, 1]})
# the candidates of target item 1: only item 2 shares its users (cosine 1.0, the gold, slot 3);
# 3 and 4 share u (cosine 0.707), the others none
TEN = ["7", "8", "9", "2", "3", "10", "11", "12", "4", "13"]


def base_questions():
    plots = {str(i): f"Logline of film {i}." for i in range(1, 13)}
    return {
        "attr_genre": {"qid": "d/attr_genre/uu", "measure": "attr_genre", "qtype": "mcq", "user_id": "u",
                       "history": ["1", "2", "3", "4", "5"], "target_item": "6", "candidate_kind": "value",
                       "candidates": ["Drama", "Comedy", "Horror", "Western"], "answer_index": 0},
        "text_logline": {"qid": "d/text_logline/uu", "measure": "text_logline", "qtype": "mcq", "user_id": "u",
                         "history": ["1", "2", "3", "4", "5"], "target_item": "6", "candidate_kind": "item",
                         "candidates": ["7", "6", "8", "9"], "answer_index": 1, "item_texts": plots},
        "mem_item_item": {"qid": "d/mem_item_item/1", "measure": "mem_item_item", "qtype": "hit10",
                          "context": {"target_item": "1"}, "candidate_kind": "item", "candidates": TEN,
                          "answer_index": 3},
        "neu_item2users": {"qid": "d/neu_item2users/12", "measure": "neu_item2users", "qtype": "hit10",
                           "context": {"target_item": "6", "candidate_histories": {}}, "candidate_kind": "user",
                           "candidates": ["u", "v", "w"] + [f"x{k}" for k in range(7)], "answer_index": 0},
        "neu_user2items": {"qid": "d/neu_user2items/v", "measure": "neu_user2items", "qtype": "hit10",
                           "context": {"target_user": "v", "history": [str(i) for i in range(7, 13)]},
                           "candidate_kind": "item", "candidates": [str(i) for i in range(1, 7)] + ["13", "14", "15", "16"],
                           "answer_index": 0},
        "mem_user_user": {"qid": "d/mem_user_user/u", "measure": "mem_user_user", "qtype": "hit10",
                          "context": {"target_user": "u", "history": ["1"], "candidate_histories": {}},
                          "candidate_kind": "user", "candidates": ["z", "v", "w"] + [f"x{k}" for k in range(7)],
                          "answer_index": 0},
        "assoc_rule": {"qid": "d/assoc_rule/1+2->3", "measure": "assoc_rule", "qtype": "hit10",
                       "context": {"antecedents": ["1", "2"]}, "candidate_kind": "item",
                       "candidates": [str(i) for i in range(3, 13)], "answer_index": 0},
    }


def with_histories(qs):
    for q in qs.values():
        q["dataset"] = "d"
        if q["candidate_kind"] == "user":  # each candidate user shown by one recent film
            q["context"]["candidate_histories"] = {c: [str((k % 12) + 1)] for k, c in enumerate(q["candidates"])}
    return qs


ITEMS_X = pd.concat([ITEMS, pd.DataFrame({"item_id": ["13", "14", "15", "16"], "title": ["Film 13", "Film 14", "Film 15",
                                                                                       "Film 16"], "year": 2000,
                                          "genres": [["Comedy"]] * 4})], ignore_index=True)


def prompts_for(questions, variant="zero_shot"):
    texts = ItemTexts(ITEMS_X)
    out = []
    for m, (path, qs) in questions.items():
        ps = []
        for q in qs:
            p = render(TEMPLATE, q, texts)
            p.update(measure=m, dataset="d", variant=variant)
            ps.append(p)
        out.append((f"results/prompts/d/{m}/{variant}.jsonl", m, ps))
    return out


def one(**changes):
    """The valid base questions, one per measure; `changes` maps measure -> a function editing its question."""
    qs = copy.deepcopy(base_questions())
    for m, edit in changes.items():
        edit(qs[m])
    return {m: [q] for m, q in with_histories(qs).items()}


