"""The audit re-derives golds from the rawest artifact: knowledge golds from the witnessed facts
table (not only items.parquet), neural golds from embeddings.parquet (not only prototypes.parquet)."""

import numpy as np
import pandas as pd

from lrworld.audit.report import audit_dataset, to_markdown
from lrworld.groundtruth.prototypes import prototype_candidates
from lrworld.groundtruth.questions import build_neu_user2items_questions
from tests.support.fixtures_audit import INTER, ITEMS_X


def _audit(measure, qs, items=ITEMS_X, inter=INTER, artifacts=None, facts=None):
    questions = {measure: (f"results/questions/d/{measure}.jsonl", qs)}
    return audit_dataset("d", "movie", questions, [], {}, inter, items, {}, artifacts, facts)


DIRECTORS = {"6": ["Ridley Scott"], "7": ["Tony Scott"], "8": ["Jane Campion"], "9": ["John Woo"], "10": ["Ang Lee"]}
# item 6: both sources name Ridley Scott; one also names a co-director the other does not
FACTS = pd.DataFrame({
    "item_id": ["6", "6", "7", "8", "9", "10"],
    "field": "director",
    "value": ["Ridley Scott", "Ken Loach (I)", "Tony Scott", "Jane Campion", "John Woo", "Ang Lee"],
    "sources": [["imdb_details", "hetrec_directors"], ["hetrec_directors"], ["imdb_details"], ["imdb_details"],
                ["imdb_details"], ["imdb_details"]],
    "witnesses": [2, 1, 1, 1, 1, 1],
    "status": ["agreed", "not_agreed", "single_source", "single_source", "single_source", "single_source"]})


def _kg(gold="Ridley Scott", negatives=("Tony Scott", "Jane Campion", "John Woo")):
    return [{"qid": "d/kg_director/uu", "measure": "kg_director", "qtype": "mcq", "user_id": "u",
             "history": ["1", "2", "3", "4", "5"], "target_item": "6", "candidate_kind": "value",
             "candidates": [gold, *negatives], "answer_index": 0}]


def _items(director_of_6):
    d = {**DIRECTORS, "6": director_of_6}
    return ITEMS_X.assign(director=[d.get(i, []) for i in ITEMS_X["item_id"]])


def test_a_wrong_director_in_items_fails_against_the_witnessed_facts():
    assert _audit("kg_director", _kg(), _items(["Ridley Scott"]), facts=FACTS)[1] == []
    # what a bad join produces: another person in items.parquet, the question built from it
    wrong = _items(["Philip Jackson"])
    _, v = _audit("kg_director", _kg("Philip Jackson"), wrong)
    assert v == []  # items.parquet alone cannot see it
    _, v = _audit("kg_director", _kg("Philip Jackson"), wrong, facts=FACTS)
    assert [x.line() for x in v] == ["results/questions/d/kg_director.jsonl: d/kg_director/uu: gold_not_witnessed: "
                                     "'Philip Jackson' is not a witnessed value of item 6 in facts.parquet"]


def test_a_distractor_one_source_gives_the_film_fails():
    _, v = _audit("kg_director", _kg(negatives=("Tony Scott", "Ken Loach", "John Woo")), _items(["Ridley Scott"]),
                  facts=FACTS)
    assert [x.check for x in v] == ["distractor_witnessed_of_positive"]
    assert "'Ken Loach' is a value a source gives item 6" in v[0].detail


def _embeddings(seeds=3, users=30, items=60, dim=8):
    rng = np.random.default_rng(7)
    parts = []
    for j in range(seeds):
        for kind, n in (("user", users), ("item", items)):
            ids = [f"{kind[0]}{k}" for k in range(n)]
            parts.append(pd.DataFrame({"seed": j, "kind": kind, "id": ids,
                                       "gmf": list(rng.normal(size=(n, dim))), "mlp": list(rng.normal(size=(n, 2)))}))
    return pd.concat(parts, ignore_index=True)


def test_a_forged_prototypes_row_fails_against_the_embeddings():
    emb = _embeddings()
    rng = np.random.default_rng(3)
    inter = pd.DataFrame([(f"u{u}", f"i{i}", 4.0, t) for u in range(30)
                          for t, i in enumerate(rng.choice(60, size=8, replace=False))],
                         columns=["user_id", "item_id", "rating", "timestamp"])
    protos, stats = prototype_candidates(emb, inter, "neu_user2items", n_targets=3, k=3, n_positives=3,
                                         dataset="d", margin=0.0)
    qs, _ = build_neu_user2items_questions(inter, protos, 3, 0, "d")
    assert len(qs) >= 1
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(60)], "title": [f"Film {k}" for k in range(60)],
                          "year": 2000})
    arts = {"prototypes": protos, "embeddings": emb}
    assert _audit("neu_user2items", qs, items, inter, arts)[1] == []
    # forge the first question: the answer moved to another candidate, whose prototypes row is
    # given the old gold's cosines (and the old gold its), so the artifact and the evidence agree
    q = qs[0]
    target = str(q["context"]["target_user"])
    old, new = q["candidates"][q["answer_index"]], q["candidates"][(q["answer_index"] + 1) % 10]
    forged = protos.copy()
    rows = forged.index[(forged["target"] == target) & forged["candidate"].isin([old, new])]
    a, b = (forged.index[(forged["target"] == target) & (forged["candidate"] == c)][0] for c in (old, new))
    for col in ("cosine", "seed_cosines"):
        forged.at[a, col], forged.at[b, col] = protos.at[b, col], protos.at[a, col]
    forged.loc[rows, "is_answer"] = forged.loc[rows, "candidate"] == new
    fq = dict(q, answer_index=q["candidates"].index(new),
              evidence={**q["evidence"], "cosine": [float(forged.loc[(forged["target"] == target)
                                                                     & (forged["candidate"] == c), "cosine"].iat[0])
                                                    for c in q["candidates"]]})
    # against prototypes.parquet alone the forgery holds
    _, v = _audit("neu_user2items", [fq], items, inter, {"prototypes": forged})
    assert v == []
    _, v = _audit("neu_user2items", [fq], items, inter, {"prototypes": forged, "embeddings": emb})
    checks = {x.check for x in v}
    assert checks == {"gold_not_argmax", "artifact_differs_from_embeddings"}
    assert any("recomputed from embeddings.parquet, under NeuMF training 0" in x.detail for x in v)


def test_the_audit_counts_the_merged_works_and_each_fields_sources():
    ingest = {"same_work_merged": {"groups": 2, "items_merged": 2, "by": {"imdb_id": 1, "title_year": 1},
                                   "merged": ["Twins (1988): 2 + 3 -> 2 by title_year",
                                              "Heat (1995): 6 + 99006 -> 6 by imdb_id"],
                                   "kept_apart_external_ids_differ": ["Emma (1996): 838 / 26958"],
                                   "damaged_titles_not_merged": 2},
              "facts": {"fields": {"director": {"sources": ["imdb_details", "hetrec_directors"], "witnesses": {"2": 3},
                                                "agreement": {"imdb_details|hetrec_directors":
                                                              {"both": 4, "agree": 3, "rate": 0.75}},
                                                "dropped": 1}}}}
    questions = {"kg_director": ("results/questions/d/kg_director.jsonl", _kg())}
    audit, v = audit_dataset("d", "movie", questions, [], {}, INTER, _items(["Ridley Scott"]), ingest, None, FACTS)
    assert v == [] and audit["works"]["merged"][1] == "Heat (1995): 6 + 99006 -> 6 by imdb_id"
    md = to_markdown(audit)
    assert ("Works: 2 groups of ids merged as one work (1 by imdb_id, 1 by title_year); 1 title + year groups kept "
            "apart by their external ids; 2 damaged titles never merged.") in md
    assert ("Facts `director`: sources imdb_details, hetrec_directors; witnesses per item {'2': 3}; imdb_details and "
            "hetrec_directors agree on 3 of 4 films, 1 dropped.") in md
