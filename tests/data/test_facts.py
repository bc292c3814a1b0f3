import json

import pandas as pd
import pytest

from lrworld.core.names import clean_name, name_key, same_name
from lrworld.data.facts import Facts, reconcile
from lrworld.data.ingest import ingest_with_facts
from lrworld.data.joins.guard import imdb_number
from lrworld.questions.build import build_questions


@pytest.mark.parametrize("raw, shown", [
    ("Director Ridley Scott", "Ridley Scott"), ("Directed by:  Tony   Scott", "Tony Scott"),
    ("David Butler (I)", "David Butler"), ("Richard Brooks I", "Richard Brooks"), ("John Woo", "John Woo"),
])
def test_clean_name_drops_job_titles_and_disambiguators(raw, shown):
    assert clean_name(raw) == shown


def test_name_key_and_spellings():
    assert name_key("Peter OToole") == name_key("Peter O'Toole") == "peterotoole"
    assert name_key("Mika Kaurismäki") == "mikakaurismaki"
    assert same_name("Tran Anh Hung", "Anh Hung Tran")  # the family name first or last
    assert same_name("Andrei Tarkovsky", "Andrey Tarkovskiy")
    assert not same_name("Tony Scott", "Ridley Scott")
    assert not same_name("Joel Coen", "Ethan Coen")


def _items(n):
    return pd.DataFrame({"item_id": [str(i) for i in range(1, n + 1)], "title": [f"Film {i}" for i in range(1, n + 1)],
                         "year": [2000] * n, "director": [[] for _ in range(n)]})


def _facts():
    f = Facts()
    f.record("a", pd.DataFrame({"item_id": ["1", "2", "3"],
                                "director": [["Director Joel Coen", "Ethan Coen"], ["Tony Scott"], ["Solo One"]]}),
             ["director"])
    f.record("b", pd.DataFrame({"item_id": ["1", "2", "4"],
                                "director": [["Joel Coen"], ["Geoffrey G. Bowers"], ["Solo Two (I)"]]}), ["director"])
    return f


def test_reconcile_keeps_what_every_covering_source_gives():
    out, table, rep = reconcile(_items(4), _facts(), require_agreement=True)
    by = out.set_index("item_id")
    # film 1: both sources name Joel Coen; Ethan Coen has one witness: not a gold, never a distractor
    assert list(by.loc["1", "director"]) == ["Joel Coen"] and by.loc["1", "director_witnesses"] == 2
    assert list(by.loc["1", "director_other"]) == ["Ethan Coen"]
    # film 2: no name in common -> dropped, with what each source said
    assert list(by.loc["2", "director"]) == []
    assert by.loc["2", "director_dropped"] == "sources_disagree: a: Tony Scott; b: Geoffrey G. Bowers"
    # single-source films are kept, witnesses 1, names cleaned
    assert list(by.loc["3", "director"]) == ["Solo One"] and by.loc["3", "director_witnesses"] == 1
    assert list(by.loc["4", "director"]) == ["Solo Two"] and list(by.loc["4", "director_sources"]) == ["b"]
    d = rep["fields"]["director"]
    assert d["agreement"] == {"a|b": {"both": 2, "agree": 1, "rate": 0.5}}
    assert d["witnesses"] == {"1": 2, "2": 1} and d["dropped"] == 1
    assert d["dropped_films"] == {"sources_disagree": ["item 2 'Film 2': a: Tony Scott; b: Geoffrey G. Bowers"]}
    row = table[(table.item_id == "1") & (table.value == "Joel Coen")].iloc[0]
    assert (list(row.sources), row.witnesses, row.status) == (["a", "b"], 2, "agreed")


def test_without_agreement_the_first_source_is_kept_as_single_source():
    out, table, rep = reconcile(_items(4), _facts(), require_agreement=False)
    by = out.set_index("item_id")
    assert list(by.loc["2", "director"]) == ["Tony Scott"] and by.loc["2", "director_witnesses"] == 1
    assert pd.isna(by.loc["2", "director_dropped"]) and list(by.loc["2", "director_other"]) == ["Geoffrey G. Bowers"]
    film2 = table[table.item_id == "2"].set_index("value")["status"].to_dict()
    assert film2 == {"Tony Scott": "first_source", "Geoffrey G. Bowers": "disagreed"}
    assert rep["require_agreement"] is False and rep["fields"]["director"]["disagreed"] == {"sources_disagree": 1}


@pytest.fixture(scope="module")
def ml100k_witnessed(shared_data):
    d, h = shared_data / "movielens-100k", shared_data / "hetrec2011-movielens-2k"
    return ingest_with_facts("ml", {"format": "ml-100k", "metadata": {"min_alignment": 0.5}}, d / "raw",
                             {"imdb_details": d / "imdb-details/movielens100k_details.json",
                              "hetrec_directors": [h / "movie_directors.dat"], "hetrec_movies": [h / "movies.dat"]})


def _raw_directors(shared_data):
    """Each source's directors per ML-100K id, read here from the files themselves."""
    d, h = shared_data / "movielens-100k", shared_data / "hetrec2011-movielens-2k"
    details = {str(r["movie_id"]): r for r in json.load(open(d / "imdb-details/movielens100k_details.json"))}
    movies = pd.read_csv(h / "movies.dat", sep="\t", encoding="latin-1", dtype=str)
    het_id = {int(v): k for k, v in zip(movies["id"], movies["imdbID"])}
    dirs = pd.read_csv(h / "movie_directors.dat", sep="\t", encoding="latin-1", dtype=str)
    het = dirs.groupby("movieID")["directorName"].agg(list).to_dict()
    imdb = {i: [x for x in r.get("director") or []] for i, r in details.items()}
    hetrec = {i: het.get(het_id.get(imdb_number(r.get("movie_url")))) for i, r in details.items()}
    return imdb, hetrec


def test_ml100k_kg_director_golds_agree_with_both_sources(ml100k_witnessed, shared_data):
    inter, items, _, report, facts = ml100k_witnessed
    d = report["facts"]["fields"]["director"]
    assert d["sources"] == ["imdb_details", "hetrec_directors"]
    pair = d["agreement"]["imdb_details|hetrec_directors"]
    assert (pair["both"], pair["agree"]) == (1229, 1185) and pair["rate"] == 0.9642
    dropped = "\n".join(d["dropped_films"]["sources_disagree"])
    assert len(d["dropped_films"]["sources_disagree"]) == 44 == d["dropped"]
    for film in ("item 161 'Top Gun': imdb_details: Tony Scott; hetrec_directors: Geoffrey G. Bowers",
                 "item 7 'Twelve Monkeys': imdb_details: Terry Gilliam; hetrec_directors: Siddharth Randeria",
                 "item 1088 'Double Team': imdb_details: Hark Tsui; hetrec_directors: Dennis Rodman"):
        assert film in dropped
    qs, qrep = build_questions("ml", "movie", "kg_director", inter, items, 5, None, 2024)
    assert qrep["skipped"]["sources_disagree"] == 36
    assert any(x.startswith("item 161 'Top Gun'") for x in qrep["facts"]["dropped_targets"]["sources_disagree"])
    assert qrep["facts"]["witnesses"] == {"1": 87, "2": 763}
    assert qrep["facts"]["sources"] == {"hetrec_directors": 44, "imdb_details": 43, "imdb_details+hetrec_directors": 763}
    imdb, hetrec = _raw_directors(shared_data)
    both = 0
    for q in qs:
        gold = q["candidates"][q["answer_index"]]
        own, het = imdb.get(q["target_item"], []), hetrec.get(q["target_item"]) or []
        if own and het:
            both += 1
            assert any(same_name(gold, h) for h in own) and any(same_name(gold, h) for h in het), q["qid"]
        # a distractor is never a name any source gives the film
        for n in q["candidates"][:q["answer_index"]] + q["candidates"][q["answer_index"] + 1:]:
            assert name_key(n) not in {name_key(x) for x in own + het}, q["qid"]
    assert both >= 700


def test_ml100k_rows_of_another_film_give_no_logline(ml100k_witnessed):
    inter, items, _, report, facts = ml100k_witnessed
    by = items.set_index("item_id")
    # The Mighty, Les Boys, Mondo: the details give Mighty Joe Young's, The Butcher Boy's and The
    # Whole Wide World's IMDb rows (HetRec names those ids so)
    for item in ("1432", "1463", "1389"):
        assert pd.isna(by.loc[item, "plot"]) and list(by.loc[item, "director"]) == []
        rows = facts[facts.item_id == item]
        assert not any("imdb_details" in s for s in rows["sources"]) and set(rows["field"]) == {"genres"}
    assert report["facts"]["rows_of_another_film"] == {"imdb_details: imdb_id_titled_otherwise_in_hetrec": 41}
    qs, qrep = build_questions("ml", "movie", "text_logline", inter, items, 5, None, 2024)
    assert qrep["facts"]["sources"] == {"imdb_details": len(qs)}  # the report names the loglines' source
    shown = {i for q in qs for i in q["item_texts"]}
    assert not shown & {"1432", "1463", "1389"}


def test_min_witnesses_two_keeps_only_golds_two_sources_agree_on():
    items = _items(4).assign(genres=[["Drama"], [], [], []])
    f = _facts()
    f.record("a", items, ["genres"])
    out, table, rep = reconcile(items, f, require_agreement=True, min_witnesses=2)
    by = out.set_index("item_id")
    assert list(by.loc["1", "director"]) == ["Joel Coen"]  # two witnesses
    # films 3 and 4: one source each -> dropped, with that source named; film 2 as before
    assert list(by.loc["3", "director"]) == [] and by.loc["3", "director_dropped"] == "single_source: a only"
    assert by.loc["4", "director_dropped"] == "single_source: b only"
    assert by.loc["2", "director_dropped"].startswith("sources_disagree: ")
    # a field no second source gives (genres) loses every value, and says so
    assert list(by.loc["1", "genres"]) == [] and by.loc["1", "genres_dropped"] == "single_source: a only"
    d = rep["fields"]["director"]
    assert (d["dropped"], d["dropped_single_source"], d["witnesses"]) == (1, 2, {"2": 1})
    assert rep["fields"]["genres"]["dropped_single_source"] == 1 and rep["min_witnesses"] == 2
    assert len(table) == len(reconcile(items, f)[1])  # the facts table keeps every recorded row
    # the default keeps them, and writes no `_dropped` column for fields never compared
    default, _, rep1 = reconcile(items, f)
    assert "genres_dropped" not in default and "min_witnesses" not in rep1
