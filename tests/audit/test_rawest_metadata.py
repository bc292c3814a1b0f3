"""The knowledge golds are re-derived from the raw metadata files the config names: a wrong
director written consistently into items.parquet and facts.parquet (what a bad join would leave
behind) passes against those two tables and fails against the raw files."""

import pandas as pd

from lrworld.audit.report import audit_dataset
from lrworld.data.ingest import ingest_with_facts
from lrworld.questions.build import build_questions


def test_a_wrong_director_in_items_and_facts_fails_against_the_raw_metadata(shared_data):
    d, h = shared_data / "movielens-100k", shared_data / "hetrec2011-movielens-2k"
    meta = {"imdb_details": d / "imdb-details/movielens100k_details.json",
            "hetrec_directors": [h / "movie_directors.dat"], "hetrec_movies": [h / "movies.dat"]}
    inter, items, _, report, facts = ingest_with_facts("ml", {"format": "ml-100k"}, d / "raw", meta)
    # what the audit rule re-derives from the same raw files
    raw_facts = ingest_with_facts("ml", {"format": "ml-100k"}, d / "raw", meta)[4]
    qs, rep = build_questions("ml", "movie", "kg_director", inter, items, 5, 10, 0)

    def audit(qs, items, facts):
        questions = {"kg_director": ("results/questions/ml/kg_director.jsonl", qs)}
        return audit_dataset("ml", "movie", questions, [], {}, inter, items, report, None, facts, raw_facts)[1]

    assert audit(qs, items, facts) == []
    # plant: the first question's film gets another director, in both tables, and its gold follows
    q = dict(qs[0], candidates=list(qs[0]["candidates"]))
    film, wrong = str(q["target_item"]), "Philip Jackson"
    q["candidates"][q["answer_index"]] = wrong
    items2 = items.copy()
    items2["director"] = [[wrong] if str(i) == film else v for i, v in zip(items2["item_id"], items2["director"])]
    facts2 = facts[~((facts["item_id"].astype(str) == film) & (facts["field"] == "director"))]
    facts2 = pd.concat([facts2, pd.DataFrame({"item_id": [film], "field": ["director"], "value": [wrong],
                                              "sources": [["imdb_details", "hetrec_directors"]], "witnesses": [2],
                                              "status": ["agreed"]})], ignore_index=True)
    v = audit([q, *qs[1:]], items2, facts2)
    assert [(x.qid, x.check) for x in v] == [(q["qid"], "gold_not_in_raw_metadata")]
    assert f"'{wrong}' is not a witnessed value of item {film} in the raw data and metadata files" in v[0].detail
