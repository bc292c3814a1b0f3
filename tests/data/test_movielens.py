import pandas as pd
import pytest

from lrworld.data.contract import DataError
from lrworld.data.ingest import ingest
from lrworld.data.movielens import load_ml_latest, split_title_year


def test_ml100k_raw_counts_and_known_movie(shared_data):
    inter, items, users, report = ingest("ml", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    assert (report["users"], report["items"], report["interactions"]) == (943, 1682, 100000)
    assert len(users) == 943
    toy = items.set_index("item_id").loc["1"]
    assert (toy["title"], int(toy["year"])) == ("Toy Story", 1995)
    assert list(toy["genres"]) == ["Animation", "Children's", "Comedy"]
    # contract order: by user, then time, then item
    first = inter[inter.user_id == "1"].head(2)
    assert first["timestamp"].is_monotonic_increasing
    assert inter.dtypes["timestamp"] == "int64" and pd.api.types.is_string_dtype(inter["user_id"])


def test_recbole_atomic_export_equals_raw_layout(shared_data):
    raw = ingest("a", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    rb = ingest("b", {"format": "recbole-atomic", "prefix": "ml-100k"}, shared_data / "movielens-100k/recbole-atomic", {})
    pd.testing.assert_frame_equal(raw[0], rb[0])
    merged = raw[1][["item_id", "genres"]].merge(rb[1][["item_id", "genres"]], on="item_id")
    assert (merged["genres_x"].map(list) == merged["genres_y"].map(list)).all()


def test_ml_latest_layout(tmp_path):
    (tmp_path / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,4.5,964981247\n2,1,3.0,1\n")
    (tmp_path / "movies.csv").write_text(
        'movieId,title,genres\n1,Toy Story (1995),Adventure|Animation|Children|Comedy|Fantasy\n'
        '3,"Grumpier Old Men, The (1995)",Comedy|Romance\n')
    (tmp_path / "links.csv").write_text("movieId,imdbId,tmdbId\n1,0114709,862\n3,0113228,15602\n")
    inter, items, users = load_ml_latest(tmp_path)
    assert len(inter) == 3 and set(items["title"]) == {"Toy Story", "Grumpier Old Men, The"}
    assert items.set_index("item_id").loc[3, "imdb_id"] == "0113228"


def test_split_title_year():
    assert split_title_year("Three Colors: White (1994)") == ("Three Colors: White", 1994)
    assert split_title_year("Untitled") == ("Untitled", None)


def test_wrong_delimiter_names_file_and_line(tmp_path):
    (tmp_path / "u.data").write_text("1\t2\t3\t100\n1,3,4,101\n")
    (tmp_path / "u.item").write_text("2|A (1990)|x||u" + "|0" * 19 + "\n")
    with pytest.raises(DataError, match=r"u\.data.*(line 2|expected 4 columns)"):
        ingest("bad", {"format": "ml-100k"}, tmp_path, {})


def test_wrong_encoding_is_named(tmp_path):
    (tmp_path / "ratings.csv").write_bytes("userId,movieId,rating,timestamp\n1,1,4.0,9\n".encode())
    (tmp_path / "movies.csv").write_bytes("movieId,title,genres\n1,Am\xe9lie (2001),Comedy\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"movies\.csv: not readable as utf-8"):
        load_ml_latest(tmp_path)


def test_interaction_for_unknown_item_is_an_error(tmp_path):
    (tmp_path / "u.data").write_text("1\t2\t3\t100\n1\t9\t4\t101\n")
    (tmp_path / "u.item").write_text("2|A (1990)|x||u" + "|0" * 19 + "\n")
    with pytest.raises(DataError, match=r"datasets\.bad: 1 interactions name items missing .*item 9"):
        ingest("bad", {"format": "ml-100k"}, tmp_path, {})
