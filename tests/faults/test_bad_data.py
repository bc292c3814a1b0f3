"""Bad input data: a clear error naming the file and row or key, or a documented, counted skip."""

import pytest

from lrworld.data.contract import DataError
from lrworld.data.ingest import ingest
from lrworld.questions.build import QuestionError, build_questions

ITEM_LINE = "{i}|Film {i} (1990)|01-Jan-1990||u" + "|0" * 8 + "|{drama}" + "|0" * 10 + "\n"


def write_ml100k(tmp_path, rows, n_items=6, drama=(1, 2, 3, 4, 5, 6)):
    (tmp_path / "u.data").write_text("".join("\t".join(map(str, r)) + "\n" for r in rows))
    (tmp_path / "u.item").write_text("".join(ITEM_LINE.format(i=i, drama=int(i in drama)) for i in range(1, n_items + 1)))
    return tmp_path


def test_missing_column_is_named(tmp_path):
    (tmp_path / "ratings.csv").write_text("userId,movieId,timestamp\n1,1,5\n")
    (tmp_path / "movies.csv").write_text("movieId,title,genres\n1,A (1990),Drama\n")
    with pytest.raises(DataError, match=r"ratings\.csv: missing column 'rating'"):
        ingest("d", {"format": "ml-latest"}, tmp_path, {})


def test_non_numeric_value_names_the_line(tmp_path):
    write_ml100k(tmp_path, [(1, 1, 5, 10), (1, 2, "five", 11)])
    with pytest.raises(DataError, match=r"u\.data: line 2: column 'rating' should be float, got 'five'"):
        ingest("d", {"format": "ml-100k"}, tmp_path, {})


def test_duplicates_are_dropped_and_counted_and_time_order_is_restored(tmp_path):
    rows = [(1, 3, 5, 30), (1, 1, 5, 10), (1, 1, 5, 10), (1, 2, 4, 20)]  # out of order, one duplicate
    inter, _, _, report = ingest("d", {"format": "ml-100k"}, write_ml100k(tmp_path, rows), {})
    assert report["duplicates_dropped"] == 1
    assert inter["item_id"].tolist() == ["1", "2", "3"]


def test_short_histories_and_items_without_genre_are_counted(tmp_path):
    rows = [(1, i, 5, i) for i in range(1, 7)] + [(2, 1, 5, 1), (2, 2, 5, 2)]
    # user 1's next movie (item 6) has no genre -> skipped, counted; user 2 is too short
    d = write_ml100k(tmp_path, rows, drama=(1, 2, 3, 4, 5))
    inter, items, _, _ = ingest("d", {"format": "ml-100k"}, d, {})
    with pytest.raises(QuestionError, match=r"no question could be built \(1 windows: the item has no value in items.genres\)"):
        build_questions("d", "movie", "attr_genre", inter, items, 5, None, 1)


def test_too_few_distinct_values_for_negatives(tmp_path):
    rows = [(1, i, 5, i) for i in range(1, 7)]
    inter, items, _, _ = ingest("d", {"format": "ml-100k"}, write_ml100k(tmp_path, rows), {})
    # only one genre (Drama) exists: 3 negatives cannot be drawn
    with pytest.raises(QuestionError, match="too_few_distinct_values"):
        build_questions("d", "movie", "attr_genre", inter, items, 5, None, 1)


def test_no_user_long_enough(tmp_path):
    inter, items, _, _ = ingest("d", {"format": "ml-100k"}, write_ml100k(tmp_path, [(1, 1, 5, 1), (1, 2, 5, 2)]), {})
    with pytest.raises(QuestionError, match="no user has more than history_length=5"):
        build_questions("d", "movie", "attr_genre", inter, items, 5, None, 1)


def test_malformed_imdb_json_is_named(tmp_path, shared_data):
    bad = tmp_path / "details.json"
    bad.write_text('[{"movie_id": 1, "year": 1995,}]')
    with pytest.raises(DataError, match=r"details\.json: not valid JSON \(line 1"):
        ingest("d", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {"imdb_details": bad})


def test_no_half_written_output_on_failure(tmp_path):
    from lrworld.core import io

    target = tmp_path / "out.jsonl"

    def records():
        yield {"a": 1}
        raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        io.write_jsonl(target, records())
    assert not target.exists() and list(tmp_path.iterdir()) == []
