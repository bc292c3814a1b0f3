import pandas as pd
import pytest

from lrworld.data.contract import DataError
from lrworld.data.ingest import ingest
from lrworld.data.joins import JOINS


def test_imdb_details_join_drops_year_mismatches(shared_data):
    d = shared_data / "movielens-100k"
    _, items, _, report = ingest("ml", {"format": "ml-100k"}, d / "raw",
                                 {"imdb_details": d / "imdb-details/movielens100k_details.json"})
    meta = report["joins"]["imdb_details"]
    assert meta["rows"] == 1591
    assert meta["dropped_year_not_numeric"] == 112
    assert meta["dropped_year_mismatch"] == 21
    assert meta["aligned"] == 1591 - 112 - 21 == 1458
    assert meta["alignment_rate"] == round(1458 / 1682, 4)
    by_id = items.set_index("item_id")
    assert list(by_id.loc["1", "director"]) == ["John Lasseter"]
    assert list(by_id.loc["100", "director"]) == ["Joel Coen", "Ethan Coen"]  # Fargo
    assert by_id.loc["1", "plot"].startswith("A cowboy doll")
    assert list(by_id.loc["1", "cast"])[:2] == ["Tom Hanks", "Tim Allen"]


def test_alignment_below_the_floor_fails_in_one_line(shared_data):
    d = shared_data / "movielens-100k"
    cfg = {"format": "ml-100k", "metadata": {"min_alignment": {"imdb_details": 0.9}}}
    with pytest.raises(DataError) as exc:
        ingest("ml", cfg, d / "raw", {"imdb_details": d / "imdb-details/movielens100k_details.json"})
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("datasets.ml.metadata: join imdb_details aligned 1458 of 1682 items "
                                              "(86.68%), below min_alignment 0.9; check ")


def test_hetrec_directors_join_in_ml10m_id_space(shared_data):
    items = pd.DataFrame({"item_id": ["1", "3", "999999"], "title": ["Toy Story", "Grumpier Old Men", "x"],
                          "director": [[], [], []]})
    out, report = JOINS.get("hetrec_directors").apply(
        items, None, {"hetrec_directors": [shared_data / "hetrec2011-movielens-2k/movie_directors.dat"]}, {})
    by_id = out.set_index("item_id")
    assert list(by_id.loc["1", "director"]) == ["John Lasseter"]
    assert list(by_id.loc["999999", "director"]) == []
    assert report["rows"] == 10155 and report["aligned"] == 2
