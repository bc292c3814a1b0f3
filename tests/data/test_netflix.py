"""Netflix Prize layout on fixtures in exactly that format, aligned to a metadata CSV."""

import pandas as pd
import pytest

from lrworld.data.contract import DataError
from lrworld.data.ingest import ingest, required_files
from lrworld.data.netflix import norm_title, read_titles
from lrworld.questions.build import build_questions
from tests.support.fixtures_netflix import write_netflix

CFG = {"format": "netflix", "parts": [1, 2]}


def test_round_trip_and_alignment_rate(tmp_path):
    fx = write_netflix(tmp_path, n_users=30, seed=1)
    inter, items, users, report = ingest("nf", CFG, tmp_path, {"netflix_metadata": fx["metadata"]})
    assert len(inter) == fx["n_ratings"] and set(users["user_id"]) == set(fx["users"])
    assert inter["timestamp"].min() >= 942278400  # 1999-11-11
    al = report["netflix_metadata"]
    # 12 of 14 titles have metadata; 'Full Frame' has no year at all
    assert al["aligned"] == 12 and al["alignment_rate"] == round(12 / 14, 4) and al["movies_without_year"] == 1
    row = items.set_index("item_id")
    assert row.loc["3", "title"] == "Character" and row.loc["3", "cast"][0] == "Jan Decleir"  # the film, not the TV show
    assert row.loc["5", "director"] == ["Kevin Dunn"]  # "Rise and Fall of ECW, The" matched "The Rise and Fall of ECW"
    assert row.loc["6", "title"] == "Sick, Sad World: The Best of Daria"  # comma inside the title
    assert row.loc["9", "title"] == "Amélie" and row.loc["9", "genres"] == ["Comedies", "Romantic Movies"]
    assert row.loc["2", "director"] == [] and pd.isna(row.loc["2", "plot"])
    assert required_files("netflix", {}) == [f"combined_data_{i}.txt" for i in (1, 2, 3, 4)] + ["movie_titles.csv"]


def test_malformed_line_is_named_or_counted(tmp_path):
    write_netflix(tmp_path, n_users=10, seed=2, malformed_line=3)
    with pytest.raises(DataError, match=r"combined_data_1\.txt: line 3: expected 'user_id,rating"):
        ingest("nf", CFG, tmp_path, {})
    inter, _, _, report = ingest("nf", dict(CFG, on_bad_line="skip"), tmp_path, {})
    assert report["netflix"]["bad_lines_skipped"] == {"combined_data_1.txt": 1}


def test_titles_file_quirks(tmp_path):
    p = tmp_path / "movie_titles.csv"
    p.write_bytes("1,2003,Dinosaur Planet\r\n2,NULL,Full Frame\r\n3,2001,Am\xe9lie, or, a tale\r\n".encode("latin-1"))
    t = read_titles(p)
    assert t["title"].tolist() == ["Dinosaur Planet", "Full Frame", "Amélie, or, a tale"]
    assert t["year"].isna().tolist() == [False, True, False]
    p.write_text("1,20x3,Bad\n", encoding="latin-1")
    with pytest.raises(DataError, match="movie_titles.csv: line 1"):
        read_titles(p)
    assert norm_title("Matrix, The") == norm_title("The Matrix") == "matrix"


@pytest.mark.parametrize("measure", ["kg_director", "kg_cast", "attr_genre", "text_logline"])
def test_netflix_movie_measures(tmp_path, measure):
    fx = write_netflix(tmp_path, n_users=40, seed=3)
    inter, items, _, _ = ingest("nf", CFG, tmp_path, {"netflix_metadata": fx["metadata"]})
    qs, report = build_questions("nf", "movie", measure, inter, items, 5, None, 1)
    assert qs and len(qs) + sum(report["skipped"].values()) == 40
