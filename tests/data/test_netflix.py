"""Netflix Prize in both published layouts and both titles forms, aligned to the Kaggle catalogue
and to LLMRec's item attributes by title + year (fixtures in exactly those formats)."""

import pandas as pd
import pytest

from lrworld.data.alignment import norm_title
from lrworld.data.contract import DataError
from lrworld.data.formats import FORMATS
from lrworld.data.ingest import ingest
from lrworld.data.netflix import read_titles
from lrworld.questions.build import build_questions
from tests.support.fixtures_netflix import BASE_MOVIES, write_llmrec, write_netflix

CFG = {"format": "netflix", "parts": [1, 2]}
PRIZE = {"format": "netflix-prize", "movies": len(BASE_MOVIES)}


def test_round_trip_and_alignment_rate(tmp_path):
    fx = write_netflix(tmp_path, n_users=30, seed=1)
    cfg = dict(CFG, metadata={"min_alignment": 0.8})
    inter, items, users, report = ingest("nf", cfg, tmp_path, {"netflix_metadata": fx["metadata"]})
    assert len(inter) == fx["n_ratings"] and set(users["user_id"]) == set(fx["users"])
    assert inter["timestamp"].min() >= 942278400  # 1999-11-11
    al = report["joins"]["netflix_metadata"]
    # 12 of 14 titles have metadata; 'Full Frame' has no year at all
    assert al["aligned"] == 12 and al["alignment_rate"] == round(12 / 14, 4) and al["items_without_year"] == 1
    assert al["coverage"] == {"director": round(12 / 14, 4), "cast": round(12 / 14, 4), "genres": round(12 / 14, 4),
                              "plot": round(12 / 14, 4), "poster_url": round(12 / 14, 4)}
    row = items.set_index("item_id")
    assert row.loc["3", "title"] == "Character" and row.loc["3", "cast"][0] == "Jan Decleir"  # the film, not the TV show
    assert row.loc["5", "director"] == ["Kevin Dunn"]  # "Rise and Fall of ECW, The" matched "The Rise and Fall of ECW"
    assert row.loc["6", "title"] == "Sick, Sad World: The Best of Daria"  # comma inside the title
    assert row.loc["9", "title"] == "Amélie" and row.loc["9", "genres"] == ["Comedies", "Romantic Movies"]
    assert row.loc["2", "director"] == [] and pd.isna(row.loc["2", "plot"])
    assert FORMATS.get("netflix").inputs({"parts": [1, 2, 3, 4], "titles": "movie_titles.csv"}) == \
        [f"combined_data_{i}.txt" for i in (1, 2, 3, 4)] + ["movie_titles.csv"]


def test_a_catalogue_that_aligns_few_movies_stops_the_ingest(tmp_path):
    fx = write_netflix(tmp_path, n_users=30, seed=1, extra_movies=30)  # 44 movies, 42 in the catalogue
    meta = pd.read_csv(fx["metadata"])
    meta[~meta["title"].str.startswith("Generated")].to_csv(fx["metadata"], index=False)  # 12 of 44 left
    with pytest.raises(DataError) as exc:
        ingest("nf", CFG, tmp_path, {"netflix_metadata": fx["metadata"]})
    assert str(exc.value).startswith("datasets.nf.metadata: join netflix_metadata aligned 12 of 44 items (27.27%), "
                                      "below min_alignment 0.5; check that the catalogue covers")
    _, _, _, report = ingest("nf", dict(CFG, metadata={"min_alignment": {"netflix_metadata": 0.25}}), tmp_path,
                             {"netflix_metadata": fx["metadata"]})
    assert report["joins"]["netflix_metadata"]["alignment_rate"] == round(12 / 44, 4)


def test_original_prize_layout_equals_the_kaggle_repack(tmp_path):
    a = write_netflix(tmp_path / "kaggle", n_users=25, seed=4)
    b = write_netflix(tmp_path / "prize", n_users=25, seed=4, layout="training_set")
    assert FORMATS.get("netflix-prize").inputs(dict(PRIZE, titles="movie_titles.txt"))[:2] == \
        ["training_set/mv_0000001.txt", "training_set/mv_0000002.txt"]
    ka = ingest("k", CFG, tmp_path / "kaggle", {})
    pr = ingest("p", PRIZE, tmp_path / "prize", {})
    assert a["n_ratings"] == b["n_ratings"] == len(pr[0])
    pd.testing.assert_frame_equal(ka[0], pr[0])
    pd.testing.assert_frame_equal(ka[1], pr[1])
    # a mv file that holds another movie's block is refused
    (tmp_path / "prize/training_set/mv_0000002.txt").write_text("3:\n1,5,2005-01-01\n")
    with pytest.raises(DataError, match=r"mv_0000002\.txt: holds ratings of movie 3, expected only movie 2"):
        ingest("p", PRIZE, tmp_path / "prize", {})


def test_titles_resaved_by_a_spreadsheet_are_detected(tmp_path):
    write_netflix(tmp_path / "orig", n_users=5, seed=0)
    write_netflix(tmp_path / "sheet", n_users=5, seed=0, titles_form="spreadsheet")
    line6 = (tmp_path / "sheet/movie_titles.csv").read_bytes().splitlines()[5]
    assert line6 == b"6,2002,Sick, Sad World: The Best of Daria,,"  # 6 fields: the title was split at its comma
    orig, f1 = read_titles(tmp_path / "orig/movie_titles.csv")
    sheet, f2 = read_titles(tmp_path / "sheet/movie_titles.csv")
    assert (f1["titles_form"], f2["titles_form"]) == ("original", "spreadsheet")
    pd.testing.assert_frame_equal(orig, sheet)
    assert sheet.loc[0, "title"] == "Dinosaur Planet"  # not 'Dinosaur Planet,,,'


def test_titles_file_quirks(tmp_path):
    p = tmp_path / "movie_titles.csv"
    p.write_bytes("1,2003,Dinosaur Planet\r\n2,NULL,Full Frame\r\n3,2001,Am\xe9lie, or, a tale\r\n".encode("latin-1"))
    t, _ = read_titles(p)
    assert t["title"].tolist() == ["Dinosaur Planet", "Full Frame", "Amélie, or, a tale"]
    assert t["year"].isna().tolist() == [False, True, False]
    p.write_text("1,20x3,Bad\n", encoding="latin-1")
    with pytest.raises(DataError, match="movie_titles.csv: line 1"):
        read_titles(p)
    p.write_text("1,2003,A\n1,2004,B\n", encoding="latin-1")
    with pytest.raises(DataError, match=r"movie_titles\.csv: item_id '1' appears more than once"):
        read_titles(p)
    assert norm_title("Matrix, The") == norm_title("The Matrix") == "matrix"


def test_llmrec_item_attributes_align_by_title_and_year(tmp_path):
    fx = write_netflix(tmp_path, n_users=30, seed=1)
    llm = write_llmrec(tmp_path / "llmrec", fx["movies"], skip=(3,))
    files = {"llmrec_item_attribute": llm["attributes"], "llmrec_augmented": llm["augmented"],
             "llmrec_posters": llm["posters"]}
    _, items, _, report = ingest("nf", CFG, tmp_path, files)
    rep = report["joins"]["llmrec_netflix"]
    # 14 movies, 'Full Frame' has no year, movie 3 is left out of LLMRec's file: 12 align
    assert rep["aligned"] == 12 and rep["alignment_rate"] == round(12 / 14, 4)
    row = items.set_index("item_id")
    assert row.loc["5", "director"] == ["LLM Director 5"]  # by title + year, not by LLMRec's own ids
    assert row.loc["3", "director"] == []
    with_poster = {p for p, k in llm["llmrec_id"].items() if k % 2 == 0}
    assert rep["with_poster"] == len(with_poster) == 6 and rep["coverage"]["poster_url"] == round(6 / 14, 4)
    assert all(row.loc[str(p), "poster_url"].endswith(f"/{llm['llmrec_id'][p]}.jpg") for p in with_poster)
    # with the Kaggle catalogue too: its real directors win, LLMRec's only fill the gaps
    _, both, _, _ = ingest("nf", CFG, tmp_path, dict(files, netflix_metadata=fx["metadata"]))
    b = both.set_index("item_id")
    assert b.loc["5", "director"] == ["Kevin Dunn"] and b.loc["3", "director"] == ["Mike van Diem"]
    assert b.loc["1", "poster_url"] == "https://posters.example/1.jpg"


def test_malformed_line_is_named_or_counted(tmp_path):
    write_netflix(tmp_path, n_users=10, seed=2, malformed_line=3)
    with pytest.raises(DataError, match=r"combined_data_1\.txt: line 3: expected 'user_id,rating"):
        ingest("nf", CFG, tmp_path, {})
    inter, _, _, report = ingest("nf", dict(CFG, on_bad_line="skip"), tmp_path, {})
    assert report["netflix"]["bad_lines_skipped"] == {"combined_data_1.txt": 1}


@pytest.mark.parametrize("measure", ["kg_director", "kg_cast", "attr_genre", "text_logline"])
def test_netflix_movie_measures(tmp_path, measure):
    fx = write_netflix(tmp_path, n_users=40, seed=3)
    inter, items, _, _ = ingest("nf", CFG, tmp_path, {"netflix_metadata": fx["metadata"]})
    qs, report = build_questions("nf", "movie", measure, inter, items, 5, None, 1)
    assert qs and len(qs) + sum(report["skipped"].values()) == 40


def test_catalogue_join_takes_films_with_exact_title_and_year(tmp_path):
    # at the paper config's floor: "The Company" (2003) matched "Company" (2002), and
    # movies matched TV rows of the Kaggle catalogue
    from lrworld.data.joins import JOINS

    csv = tmp_path / "netflix_titles.csv"
    pd.DataFrame({"type": ["Movie", "TV Show", "Movie", "Movie"], "title": ["Company", "Chef", "Chef", "Matrix, The"],
                  "release_year": [2002, 2014, 2015, 1999], "director": ["Ram Gopal Varma", "", "Jon Favreau",
                                                                           "Lana Wachowski"],
                  "cast": "", "listed_in": "", "description": ""}).to_csv(csv, index=False)
    items = pd.DataFrame({"item_id": ["1", "2", "3"], "title": ["The Company", "Chef", "The Matrix"],
                          "year": [2003, 2014, 1999], "director": [[], [], []], "cast": [[], [], []],
                          "genres": [[], [], []], "plot": None, "poster_url": None})
    out, rep = JOINS.get("netflix_metadata").apply(items, None, {"netflix_metadata": [csv]}, {})
    by_id = out.set_index("item_id")
    assert list(by_id.loc["3", "director"]) == ["Lana Wachowski"] and rep["aligned"] == 1
    assert not by_id.loc["1", "director"] and not by_id.loc["2", "director"]  # (None: finalize_items makes it [])
    assert rep["dropped_not_same_work"] == {"title_differs": 1, "tv_row": 1}
    assert rep["dropped_examples"]["title_differs"] == ["item 1 'The Company' (2003) vs 'Company' (2002)"]


def test_a_utf8_bom_on_movie_titles_keeps_movie_1(tmp_path):
    # the BOM made line 1 look like a header, and movie 1 was dropped
    from lrworld.data.netflix import read_titles

    f = tmp_path / "movie_titles.csv"
    f.write_bytes("\ufeff1,2003,Dinosaur Planet\n2,2004,Isle of Man TT 2004 Review\n".encode("utf-8"))
    titles, info = read_titles(f, encoding="utf-8")
    assert list(titles["item_id"]) == ["1", "2"] and not info["titles_header_skipped"]


def test_a_utf8_bom_under_the_latin1_default_keeps_movie_1_and_reads_utf8(tmp_path):
    # under the default latin-1 the BOM read as 'ï»¿', line 1 looked like a
    # header and movie 1 was dropped; the BOM also says the file is UTF-8 ("CSV UTF-8" save)
    write_netflix(tmp_path, n_users=20, seed=2)
    f = tmp_path / "movie_titles.csv"
    f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes().decode("latin-1").encode("utf-8"))
    inter, items, _, report = ingest("n", CFG, tmp_path, {})
    rep = report["netflix"]
    assert rep["titles_utf8_bom"] is True and rep["titles_header_skipped"] is False
    row = items.set_index("item_id")
    assert len(items) == len(BASE_MOVIES) and row.loc["1", "title"] == "Dinosaur Planet"
    assert row.loc["9", "title"] == "Amélie"  # not 'AmÃ©lie'
    assert (inter["item_id"] == "1").any()


def test_latin1_titles_behind_a_stray_utf8_bom_name_utf8_and_the_mark(tmp_path):
    # the mark switches the reader to UTF-8; the Latin-1 'Amélie' then fails as UTF-8, and changing
    # datasets.<name>.encoding cannot help: the error says so, not "not readable as latin-1"
    write_netflix(tmp_path, n_users=20, seed=2)
    f = tmp_path / "movie_titles.csv"
    f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes())
    assert "Amélie".encode("latin-1") in f.read_bytes()
    with pytest.raises(DataError) as e:
        ingest("n", CFG, tmp_path, {})
    msg = str(e.value)
    assert msg.startswith(f"{f}: ") and "not readable as UTF-8 at byte offset" in msg
    assert ("the file starts with a UTF-8 byte-order mark, so it was read as UTF-8, not as the configured latin-1"
            in msg) and "remove the mark (its first 3 bytes)" in msg
    assert "not readable as latin-1" not in msg and msg.endswith("(datasets.n.encoding is 'latin-1')")


def test_titles_a_spreadsheet_turned_into_dates_are_counted_with_examples(tmp_path, caplog):
    # "September 11" resaved by Excel as "11-Sep" passed unflagged
    write_netflix(tmp_path, n_users=20, seed=2)
    f = tmp_path / "movie_titles.csv"
    lines = f.read_bytes().decode("latin-1").split("\r\n")
    damaged = {2: "11-Sep", 7: "Sep-11", 10: "9/11/2001", 12: "1.23E+15"}  # item -> what the sheet wrote
    for item, shown in damaged.items():
        n, year, _ = lines[item - 1].split(",", 2)
        lines[item - 1] = f"{n},{year},{shown}"
    f.write_bytes("\r\n".join(lines).encode("latin-1"))
    with caplog.at_level("WARNING"):
        _, items, _, report = ingest("n", CFG, tmp_path, {})
    flagged = report["netflix"]["titles_like_spreadsheet_dates"]
    assert flagged == {"count": 4, "examples": ["item 2 (2004): '11-Sep'", "item 7 (1992): 'Sep-11'",
                                                "item 10 (2004): '9/11/2001'", "item 12 (NULL): '1.23E+15'"]}
    assert items.set_index("item_id").loc["2", "title"] == "11-Sep"  # kept as written, not guessed back
    assert any("4 titles look turned into dates or numbers by a spreadsheet" in r.message for r in caplog.records)


def test_real_titles_that_look_like_dates_are_not_flagged(tmp_path):
    from lrworld.data.netflix import SPREADSHEET_DAMAGE

    for title in ("September 11", "9/11", "1776", "10", "Seven-Up", "2001: A Space Odyssey", "Sep", "May"):
        assert not SPREADSHEET_DAMAGE.fullmatch(title), title
    write_netflix(tmp_path, n_users=5, seed=0)
    _, _, _, report = ingest("n", CFG, tmp_path, {})
    assert report["netflix"]["titles_like_spreadsheet_dates"] == {"count": 0, "examples": []}
    assert report["netflix"]["titles_utf8_bom"] is False


def test_a_gz_twin_with_other_data_is_refused_and_the_report_names_the_files_read(tmp_path):
    import gzip

    write_netflix(tmp_path, n_users=10, seed=3)
    plain = tmp_path / "combined_data_1.txt"
    (tmp_path / "combined_data_1.txt.gz").write_bytes(gzip.compress(plain.read_bytes()))  # the same data
    inter, _, _, report = ingest("nf", CFG, tmp_path, {})
    assert report["files_read"][:2] == ["combined_data_1.txt", "combined_data_2.txt"]
    lines = plain.read_text().splitlines(keepends=True)
    (tmp_path / "combined_data_1.txt.gz").write_bytes(gzip.compress("".join(lines[:-1]).encode()))  # one rating less
    with pytest.raises(DataError, match=r"combined_data_1\.txt: its twin combined_data_1\.txt\.gz is also in .* "
                                        r"holds different data"):
        ingest("nf", CFG, tmp_path, {})
    plain.unlink()  # only the .gz left: it is read, and the report says so
    inter_gz, _, _, report = ingest("nf", CFG, tmp_path, {})
    assert report["files_read"][0] == "combined_data_1.txt.gz" and len(inter_gz) == len(inter) - 1
