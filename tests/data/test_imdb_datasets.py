"""IMDb's non-commercial datasets as a metadata source for ML-100K: read in their documented layout,
joined by the IMDb details' ids, a second witness of directors and cast, and title.akas deciding
whether a details row under another title is the item's film."""

import gzip

import pandas as pd

import pytest

from lrworld.data.contract import DataError
from lrworld.data.imdb_datasets import read_names, read_titles
from lrworld.data.ingest import ingest_with_facts
from tests.support.fixtures_imdb import write_imdb

META = {"min_alignment": {"default": 0.5, "imdb_datasets": 0.0}}


def test_the_documented_layout_is_read_with_nulls_lists_and_akas(tmp_path):
    files = {k.split("_", 1)[1]: v[0] for k, v in write_imdb(tmp_path).items()}
    paths = {"title.basics": files["basics"], "title.crew": files["crew"], "title.principals": files["principals"],
             "title.akas": files["akas"]}
    titles = read_titles(paths, {"tt0116213", "tt0120751", "tt0115736", "tt9999999"})
    assert set(titles) == {"tt0116213", "tt0120751", "tt0115736"}
    eraser = titles["tt0116213"]
    assert (eraser.year, eraser.directors, eraser.cast) == (1996, ["nm0751102"], ["nm0000216", "nm0001820"])
    assert titles["tt0115736"].directors == ["nm0905154", "nm0905152"]  # a comma-joined nconst list
    assert titles["tt0120751"].titles() == ["Mighty Joe Young", "Mighty Joe"]
    assert read_names(files["names"], {"nm0751102"}) == {"nm0751102": "Chuck Russell"}
    bad = tmp_path / "crew.tsv.gz"
    bad.write_bytes(gzip.compress(b"tconst\twriters\ntt1\tnm1\n"))
    with pytest.raises(DataError, match=r"crew\.tsv\.gz: not IMDb's title\.crew file: its header lacks \['directors'\]"):
        read_titles({"title.basics": paths["title.basics"], "title.crew": bad}, {"tt0116213"})


def _ingest(shared_data, tmp_path, hetrec: bool):
    d, h = shared_data / "movielens-100k", shared_data / "hetrec2011-movielens-2k"
    given = {"imdb_details": d / "imdb-details/movielens100k_details.json", **write_imdb(tmp_path / "imdb")}
    if hetrec:
        given.update({"hetrec_directors": [h / "movie_directors.dat"], "hetrec_movies": [h / "movies.dat"]})
    return ingest_with_facts("ml", {"format": "ml-100k", "metadata": META}, d / "raw", given)


@pytest.mark.parametrize("hetrec", [False, True])
def test_imdb_datasets_witness_directors_and_drop_another_films_details_row(shared_data, tmp_path, hetrec):
    _, items, _, report, facts = _ingest(shared_data, tmp_path, hetrec)
    by = items.set_index("item_id")
    join = report["joins"]["imdb_datasets"]
    assert join["titles_found"] == 5 and join["aligned"] == 4
    # The Mighty: the details give Mighty Joe Young's id; IMDb's titles for it are not the item's
    assert join["dropped_not_same_work"] == {"title_differs": 1}
    assert list(by.loc["1432", "director"]) == [] and pd.isna(by.loc["1432", "plot"])
    assert not facts[(facts.item_id == "1432") & (facts.field == "plot")].shape[0]
    gone = report["facts"]["rows_of_another_film"]
    assert gone["imdb_details: imdb_id_titled_otherwise_in_imdb"] == 1
    d = report["facts"]["fields"]["director"]
    if not hetrec:
        # Top Gun and Eraser: the details and IMDb's crew name one director: two witnesses
        assert list(by.loc["161", "director"]) == ["Tony Scott"] and by.loc["161", "director_witnesses"] == 2
        assert list(by.loc["597", "director"]) == ["Chuck Russell"] and by.loc["597", "director_witnesses"] == 2
        assert list(by.loc["597", "cast"])[:2] == ["Arnold Schwarzenegger", "Vanessa Williams"]
        assert d["agreement"]["imdb_details|imdb_datasets"] == {"both": 4, "agree": 4, "rate": 1.0}
    else:
        # HetRec's wrong director of Top Gun (Geoffrey G. Bowers) is outvoted: the film leaves kg_director
        assert by.loc["161", "director_dropped"].startswith("sources_disagree: imdb_details: Tony Scott; "
                                                            "imdb_datasets: Tony Scott; hetrec_directors: Geoffrey")
        # HetRec lists Tie Me Up! Tie Me Down! under its original title: IMDb's akas confirm the id,
        # so the details' row is kept (without them HetRec's doubt dropped it)
        assert "item 1018" not in " ".join(sum(report["facts"]["rows_of_another_film_examples"].values(), []))
        assert by.loc["1018", "plot"] and list(by.loc["1018", "director"]) == ["Pedro Almodóvar"]
        # one person under two spellings: IMDb's person ids resolve HetRec's names to the credited people
        assert list(by.loc["597", "director"]) == ["Chuck Russell"] and by.loc["597", "director_witnesses"] == 3
        assert list(by.loc["129", "director"]) == ["Lana Wachowski", "Lilly Wachowski"]
        assert by.loc["129", "director_witnesses"] == 3 and list(by.loc["129", "director_other"]) == []


def test_a_name_resolves_only_to_the_films_credited_people():
    from lrworld.data.people import resolve

    eraser = {"nm0751102": "Chuck Russell"}
    assert resolve("Charles Russell", eraser) == {"nm0751102"}
    assert resolve("Chuck Russell", eraser) == {"nm0751102"}
    assert resolve("Kurt Russell", eraser) == set()  # another given name: another person
    bound = {"nm0905154": "Lana Wachowski", "nm0905152": "Lilly Wachowski"}
    assert resolve("Larry and Andy Wachowski", bound) == {"nm0905154", "nm0905152"}
    assert resolve("Larry Wachowski", bound) == set()  # two credited Wachowskis: not which one
    assert resolve("Tony Scott", {"nm0000631": "Ridley Scott"}) == set()


def test_netflix_titles_find_their_imdb_film_by_title_year_and_akas(tmp_path):
    from tests.support.fixtures_netflix import write_netflix

    write_netflix(tmp_path / "nf", n_users=20, seed=2)
    n = "\\N"
    extra = {
        # Amélie by its primary title; Character only through an aka (IMDb's primary is Karakter)
        "title.basics": [("tt0211915", "movie", "Amélie", "Le fabuleux destin d'Amélie Poulain", "0", "2001", n, "122",
                          "Comedy,Romance"),
                         ("tt0119448", "movie", "Karakter", "Karakter", "0", "1997", n, "122", "Crime,Drama"),
                         # two IMDb films named Never Die Alone (2004): which one is not known
                         ("tt0354766", "movie", "Never Die Alone", "Never Die Alone", "0", "2004", n, "88", "Crime"),
                         ("tt9900001", "video", "Never Die Alone", "Never Die Alone", "0", "2004", n, "20", "Crime"),
                         # a series' episode of one title is never a Netflix film
                         ("tt9900002", "tvEpisode", "Dinosaur Planet", "Dinosaur Planet", "0", "2003", n, "40", n)],
        "title.akas": [("tt0119448", "1", "Character", "US", n, "imdbDisplay", n, "0")],
        "title.crew": [("tt0211915", "nm0000466", n), ("tt0119448", "nm0887263", n), ("tt0354766", "nm0225885", n)],
        "name.basics": [("nm0000466", "Jean-Pierre Jeunet", "1953", n, "director", "tt0211915"),
                        ("nm0887263", "Mike van Diem", "1959", n, "director", "tt0119448")],
    }
    given = write_imdb(tmp_path / "imdb", extra)
    cfg = {"format": "netflix", "parts": [1, 2], "metadata": {"min_alignment": 0.0}}
    _, items, _, report, _ = ingest_with_facts("nf", cfg, tmp_path / "nf", given)
    join = report["joins"]["imdb_datasets"]
    by = items.set_index("title")
    assert list(by.loc["Amélie", "director"]) == ["Jean-Pierre Jeunet"]
    assert list(by.loc["Character", "director"]) == ["Mike van Diem"]
    assert list(by.loc["Never Die Alone", "director"]) == [] and list(by.loc["Dinosaur Planet", "director"]) == []
    assert join["matched_by_title_year"] == 2 and join["aligned"] == 2
    assert join["dropped_not_same_work"] == {"title_year_ambiguous": 1}
