"""One id per work: ML-100K's 18 films listed under two ids are merged at ingest."""

import pandas as pd

from lrworld.data.ingest import ingest
from lrworld.data.works import merge_same_work, work_groups
from lrworld.prompts.render import item_keys


def test_real_ml100k_duplicates_are_merged_to_one_id(shared_data):
    inter, items, _, report = ingest("ml", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    merged = report["same_work_merged"]
    assert (merged["groups"], merged["items_merged"], merged["interactions_repointed"],
            merged["interactions_dropped_same_user"]) == (18, 18, 608, 307)
    assert "Fly Away Home (1996): 304 + 500 -> 304" in merged["examples"]
    by_id = items.set_index("item_id")
    assert list(by_id.loc["304", "original_ids"]) == ["304", "500"] and "500" not in by_id.index
    assert list(by_id.loc["1", "original_ids"]) == ["1"]
    # "Deceiver (1997)" is 1606 and 309: the smaller id, numerically, is kept
    assert list(by_id.loc["309", "original_ids"]) == ["309", "1606"]
    assert not inter["item_id"].isin(["500", "268", "1606"]).any()
    # no two items are one work, and no user meets one film twice
    keys = item_keys(items)
    assert len(set(keys.values())) == len(keys) == 1664
    assert not inter.duplicated(["user_id", "item_id"]).any()
    # switched off: the file's ids as published
    _, items, _, report = ingest("ml", {"format": "ml-100k", "merge_same_work": False},
                                 shared_data / "movielens-100k/raw", {})
    assert len(items) == 1682 and "same_work_merged" not in report


def test_merge_fills_fields_and_keeps_one_users_earliest_event():
    items = pd.DataFrame({"item_id": ["10", "9", "3"], "title": ["The Mask", "the mask!", "Mask"],
                          "year": [1994, 1994, 1994], "plot": [None, "A mask.", "Other."]})
    inter = pd.DataFrame({"user_id": ["u", "u", "v"], "item_id": ["10", "9", "10"], "timestamp": [5, 2, 1]})
    assert work_groups(items) == [["9", "10"]]  # "Mask" is another title
    out, new, rep = merge_same_work(items, inter)
    assert out.set_index("item_id").loc["9", "plot"] == "A mask." and list(out["item_id"]) == ["9", "3"]
    assert sorted(map(tuple, new[["user_id", "item_id", "timestamp"]].values.tolist())) == [("u", "9", 2), ("v", "9", 1)]
    assert (rep["interactions_repointed"], rep["interactions_dropped_same_user"]) == (2, 1)
    # no year, no merge (products and artists are never merged by title alone)
    assert work_groups(items.assign(year=None)) == []


def _ml_latest(folder, links: bool):
    """Two films called Emma (1996): Douglas McGrath's (tt0116191) and the TV film (tt0118308);
    Heat (1995) listed twice with one IMDb id; two Twins (1988) rows no id tells apart."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "movies.csv").write_text(
        "movieId,title,genres\n838,Emma (1996),Comedy\n26958,Emma (1996),Drama\n6,Heat (1995),Crime\n"
        "99006,Heat (1995),Crime\n2,Twins (1988),Comedy\n3,Twins (1988),Comedy\n", encoding="utf-8")
    rows = [f"{u},{m},4.0,{t}" for t, (u, m) in enumerate([(u, m) for u in (1, 2, 3)
                                                         for m in (838, 26958, 6, 99006, 2, 3)])]
    (folder / "ratings.csv").write_text("userId,movieId,rating,timestamp\n" + "\n".join(rows) + "\n", encoding="utf-8")
    if links:
        (folder / "links.csv").write_text("movieId,imdbId,tmdbId\n838,0116191,3573\n26958,0118308,\n"
                                          "6,0113277,949\n99006,0113277,949\n", encoding="utf-8")


def test_two_films_with_different_imdb_ids_stay_two_items(tmp_path):
    _ml_latest(tmp_path / "with", links=True)
    inter, items, _, report = ingest("ml", {"format": "ml-latest"}, tmp_path / "with", {})
    merged = report["same_work_merged"]
    ids = set(items["item_id"])
    assert {"838", "26958"} <= ids  # the two Emmas: two works
    assert merged["kept_apart_external_ids_differ"] == ["Emma (1996): 838 (imdb_id 116191, tmdb_id 3573) / "
                                                        "26958 (imdb_id 118308)"]
    # one IMDb id, one work; no id: title + year
    assert merged["merged"] == ["Twins (1988): 2 + 3 -> 2 by title_year", "Heat (1995): 6 + 99006 -> 6 by imdb_id"]
    assert merged["by"] == {"imdb_id": 1, "title_year": 1} and len(items) == 4
    assert set(inter["item_id"]) == {"838", "26958", "6", "2"}
    # without links.csv nothing tells the two Emmas apart: title + year merges them
    _ml_latest(tmp_path / "without", links=False)
    _, items, _, report = ingest("ml", {"format": "ml-latest"}, tmp_path / "without", {})
    assert "Emma (1996): 838 + 26958 -> 838 by title_year" in report["same_work_merged"]["merged"]


def test_spreadsheet_damaged_netflix_titles_never_merge(tmp_path):
    from lrworld.data.netflix import read_titles

    # "September 11" (2002) and "9/11" (2002) both read 11-Sep after a spreadsheet save
    p = tmp_path / "movie_titles.csv"
    p.write_text("1,2002,11-Sep\n2,2002,11-Sep\n3,2004,Frankenstein\n4,2004,Frankenstein\n", encoding="latin-1")
    titles, form = read_titles(p)
    assert titles["title_damaged"].tolist() == [True, True, False, False]
    inter = pd.DataFrame({"user_id": ["u", "v"], "item_id": ["1", "2"], "timestamp": [1, 2]})
    out, new, rep = merge_same_work(titles, inter)
    assert sorted(out["item_id"]) == ["1", "2", "3"] and rep["damaged_titles_not_merged"] == 2
    assert rep["merged"] == ["Frankenstein (2004): 3 + 4 -> 3 by title_year"]
    assert sorted(new["item_id"]) == ["1", "2"]


def test_a_shared_tmdb_id_with_different_imdb_ids_keeps_two_works_and_title_year_merges_warn(tmp_path, caplog):
    # the merge rule of docs/datasets.md: a shared external id joins two items unless another
    # external id both have differs (two Confessions of a Dangerous Mind (2002) rows whose links.csv
    # give one TMDb id, two IMDb ids); a group no id joins is merged on title + year with a warning
    folder = tmp_path / "ml"
    folder.mkdir()
    (folder / "movies.csv").write_text(
        "movieId,title,genres\n5878,Confessions of a Dangerous Mind (2002),Comedy\n"
        "5899,Confessions of a Dangerous Mind (2002),Drama\n2,Twins (1988),Comedy\n3,Twins (1988),Comedy\n",
        encoding="utf-8")
    rows = [f"{u},{m},4.0,{t}" for t, (u, m) in enumerate([(u, m) for u in (1, 2) for m in (5878, 5899, 2, 3)])]
    (folder / "ratings.csv").write_text("userId,movieId,rating,timestamp\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (folder / "links.csv").write_text("movieId,imdbId,tmdbId\n5878,0270288,4912\n5899,0290538,4912\n2,,\n3,,\n",
                                      encoding="utf-8")
    with caplog.at_level("WARNING", logger="lrworld.data.ingest"):
        _, items, _, report = ingest("mlx", {"format": "ml-latest"}, folder, {})
    assert {"5878", "5899"} <= set(items["item_id"])
    merged = report["same_work_merged"]
    assert merged["merged"] == ["Twins (1988): 2 + 3 -> 2 by title_year"]
    assert merged["kept_apart_external_ids_differ"] == [
        "Confessions of a Dangerous Mind (2002): 5878 (imdb_id 270288, tmdb_id 4912) / 5899 (imdb_id 290538, "
        "tmdb_id 4912)"]
    warned = [r for r in caplog.records if r.levelname == "WARNING" and "title + year alone" in r.getMessage()]
    assert len(warned) == 1 and warned[0].getMessage().startswith(
        "datasets.mlx: 1 groups of items merged as one work on title + year alone")
    assert warned[0].getMessage().endswith(": Twins (1988): 2 + 3 -> 2 by title_year")
