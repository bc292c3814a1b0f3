import pandas as pd
import pytest

from lrworld.data.contract import DataError
from lrworld.data.formats import FORMATS
from lrworld.data.ingest import ingest
from lrworld.data.movielens import split_title_year

ITEM = "{i}|{title} (1990)|01-Jan-1990||u" + "|0" * 8 + "|1" + "|0" * 10 + "\n"


def write_ml100k(folder, data="1\t2\t3\t100\n1\t3\t4\t101\n", items=(2, 3), user=None, title="A"):
    (folder / "u.data").write_text(data)
    (folder / "u.item").write_bytes("".join(ITEM.format(i=i, title=title) for i in items).encode("latin-1"))
    if user is not None:
        (folder / "u.user").write_text(user)
    return folder


def test_ml100k_raw_counts_and_known_movie(shared_data):
    inter, items, users, report = ingest("ml", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    # 18 films listed under two ids are merged to one (lrworld/data/works.py): 1,682 - 18 items, and
    # 307 events of a user on both ids of one film kept once
    assert (report["users"], report["items"], report["interactions"]) == (943, 1664, 99693)
    assert len(users) == 943 and users.set_index("user_id").loc["1", "occupation"] == "technician"
    toy = items.set_index("item_id").loc["1"]
    assert (toy["title"], int(toy["year"])) == ("Toy Story", 1995)
    assert list(toy["genres"]) == ["Animation", "Children's", "Comedy"]
    # u.item is Latin-1: 'Misérables, Les (1995)' (item 360... read back with its accent)
    assert "Les Misérables" in set(items["title"]) and "Misérables, Les" in set(items["original_title"])
    first = inter[inter.user_id == "1"].head(2)
    assert first["timestamp"].is_monotonic_increasing
    assert inter.dtypes["timestamp"] == "int64" and pd.api.types.is_string_dtype(inter["user_id"])
    assert report["field_coverage"]["genres"] == round(1662 / 1664, 4)  # two films have only 'unknown'


def test_u_user_is_a_declared_input_when_present(shared_data, tmp_path):
    fmt = FORMATS.get("ml-100k")
    cfg = {"format": "ml-100k", "encoding": "latin-1"}
    assert fmt.inputs(cfg, shared_data / "movielens-100k/raw") == ["u.data", "u.item", "u.user"]
    assert fmt.inputs(cfg, write_ml100k(tmp_path)) == ["u.data", "u.item"]


def test_recbole_atomic_export_equals_raw_layout(shared_data):
    raw = ingest("a", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    rb = ingest("b", {"format": "recbole-atomic", "prefix": "ml-100k"}, shared_data / "movielens-100k/recbole-atomic", {})
    pd.testing.assert_frame_equal(raw[0], rb[0])
    merged = raw[1][["item_id", "genres"]].merge(rb[1][["item_id", "genres"]], on="item_id")
    assert (merged["genres_x"].map(list) == merged["genres_y"].map(list)).all()


def _recbole_1m(tmp_path, shared_data, item_text=None):
    """LLMRank's real ML-1M item file (`genre:token_seq`) with a few interactions written here (the
    ML-1M ratings are not available)."""
    real = (shared_data / "llmrank-llmsrec-syn/ml-1m/ml-1m.item").read_text(encoding="utf-8")
    (tmp_path / "ml-1m.item").write_text(item_text(real) if item_text else real, encoding="utf-8")
    (tmp_path / "ml-1m.inter").write_text("user_id:token\titem_id:token\trating:float\ttimestamp:float\n"
                                          "1\t1\t5\t978300760\n1\t2\t3\t978302109\n2\t3\t4\t978301968\n")
    return tmp_path


def test_recbole_ml1m_item_layout_gives_every_genre(tmp_path, shared_data):
    raw = _recbole_1m(tmp_path, shared_data)
    assert (raw / "ml-1m.item").read_text().splitlines()[0] == (
        "item_id:token\tmovie_title:token_seq\trelease_year:token\tgenre:token_seq")
    _, items, _, report = ingest("m", {"format": "recbole-atomic", "prefix": "ml-1m", "merge_same_work": False},
                                 raw, {})
    assert len(items) == 3883 and items["genres"].map(len).gt(0).all()  # every film has its genres
    by = items.set_index("item_id")
    assert list(by.loc["1", "genres"]) == ["Animation", "Children's", "Comedy"] and by.loc["1", "year"] == 1995
    fields = report["recbole-atomic"]["fields"]
    assert fields["genres"] == {"column": "genre:token_seq", "coverage": 1.0}
    assert report["field_coverage"]["genres"] == 1.0


def test_a_declared_recbole_field_that_gives_nothing_is_a_warning_with_its_coverage(tmp_path, shared_data, caplog):
    # the genre column declared but empty on every row
    raw = _recbole_1m(tmp_path, shared_data, lambda t: "\n".join(
        [t.splitlines()[0]] + [line.rsplit("\t", 1)[0] + "\t" for line in t.splitlines()[1:]]) + "\n")
    with caplog.at_level("WARNING"):
        _, items, _, report = ingest("m", {"format": "recbole-atomic", "prefix": "ml-1m"}, raw, {})
    assert report["recbole-atomic"]["fields"]["genres"]["coverage"] == 0.0
    assert "ml-1m.item: declared field genre:token_seq gives no genres for any of its 3883 items (coverage 0.0)" \
        in caplog.text


def test_ml_latest_layout_reads_links(tmp_path):
    (tmp_path / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,4.5,964981247\n2,1,3.0,1\n")
    (tmp_path / "movies.csv").write_text(
        'movieId,title,genres\n1,Toy Story (1995),Adventure|Animation|Children|Comedy|Fantasy\n'
        '3,"Grumpier Old Men, The (1995)",Comedy|Romance\n')
    (tmp_path / "links.csv").write_text("movieId,imdbId,tmdbId\n1,0114709,862\n3,0113228,15602\n")
    assert FORMATS.get("ml-latest").inputs({}, tmp_path) == ["ratings.csv", "movies.csv", "links.csv"]
    inter, items, users, _ = ingest("l", {"format": "ml-latest"}, tmp_path, {})
    assert len(inter) == 3 and set(items["title"]) == {"Toy Story", "The Grumpier Old Men"}
    assert items.set_index("item_id").loc["3", "imdb_id"] == "0113228"


def test_split_title_year():
    assert split_title_year("Three Colors: White (1994)") == ("Three Colors: White", 1994)
    assert split_title_year("Untitled") == ("Untitled", None)


def test_wrong_delimiter_names_file_and_line(tmp_path):
    write_ml100k(tmp_path, data="1\t2\t3\t100\n1,3,4,101\n")
    with pytest.raises(DataError, match=r"u\.data: line 2: column 'user_id' should be an integer id"):
        ingest("bad", {"format": "ml-100k"}, tmp_path, {})


def test_u_user_row_with_an_extra_field_names_file_and_line(tmp_path):
    write_ml100k(tmp_path, user="1|24|M|technician|85711\n2|53|F|other|94043|extra\n")
    with pytest.raises(DataError, match=r"u\.user: line 2: more than 5 fields separated by '\|'"):
        ingest("bad", {"format": "ml-100k"}, tmp_path, {})
    # every row with one field too many: without the check, pandas would shift every column
    write_ml100k(tmp_path, user="1|24|M|technician|85711|x\n2|53|F|other|94043|y\n")
    with pytest.raises(DataError, match=r"u\.user: line 1: more than 5 fields"):
        ingest("bad", {"format": "ml-100k"}, tmp_path, {})


def test_duplicate_item_id_names_file_and_id(tmp_path):
    write_ml100k(tmp_path, items=(2, 3, 2))
    with pytest.raises(DataError, match=r"u\.item: item_id '2' appears more than once"):
        ingest("bad", {"format": "ml-100k"}, tmp_path, {})


def test_ids_above_2_63_stay_distinct_strings(tmp_path):
    big, bigger = str(2**63), str(2**64 + 7)
    write_ml100k(tmp_path, data=f"{big}\t2\t3\t100\n{bigger}\t2\t4\t101\n")
    inter, _, users, _ = ingest("big", {"format": "ml-100k"}, tmp_path, {})
    assert sorted(inter["user_id"]) == sorted([big, bigger]) and set(users["user_id"]) == {big, bigger}


def test_encoding_key_is_read(tmp_path):
    write_ml100k(tmp_path, title="Amélie")  # written as Latin-1, the published encoding
    _, items, _, _ = ingest("enc", {"format": "ml-100k"}, tmp_path, {})
    assert set(items["title"]) == {"Amélie"}
    (tmp_path / "u.item").write_bytes("".join(ITEM.format(i=i, title="Amélie") for i in (2, 3)).encode("utf-8"))
    _, items, _, _ = ingest("enc", {"format": "ml-100k", "encoding": "utf-8"}, tmp_path, {})
    assert set(items["title"]) == {"Amélie"}
    _, items, _, _ = ingest("enc", {"format": "ml-100k"}, tmp_path, {})
    assert set(items["title"]) == {"AmÃ©lie"}  # UTF-8 bytes read as Latin-1: what the key is for


def test_interaction_for_unknown_item_is_an_error(tmp_path):
    write_ml100k(tmp_path, data="1\t2\t3\t100\n1\t9\t4\t101\n")
    with pytest.raises(DataError, match=r"datasets\.bad: 1 interactions name items missing .*item 9"):
        ingest("bad", {"format": "ml-100k"}, tmp_path, {})
