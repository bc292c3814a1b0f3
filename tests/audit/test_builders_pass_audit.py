"""Every question builder, on a fixture in ml-latest layout whose users met two films of one title
(two *War of the Worlds (2005)*, two IMDb ids), builds questions the audit passes: builder and
audit apply one definition of each rule (lrworld/questions/enforced.py)."""

import numpy as np
import pandas as pd

from lrworld.data.ingest import ingest
from lrworld.questions import enforced
from lrworld.prompts.render import item_keys
from tests.support.build_and_audit import build_and_audit

DEFAULT = ["assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items", "attr_genre"]
GENRES = ["Action", "Comedy", "Drama", "Horror", "Romance", "Sci-Fi", "Thriller", "War"]


def write_ml_latest(d, n_users=60, n_items=80, per_user=25, seed=7):
    """ml-latest layout (ratings.csv, movies.csv, links.csv, headers as GroupLens writes them);
    items 1 and 2 are the two *War of the Worlds (2005)*, Spielberg's and the Asylum's."""
    rng = np.random.default_rng(seed)
    titles = ["War of the Worlds (2005)", "War of the Worlds (2005)"] + [f"Film {k} ({1980 + k % 30})"
                                                                         for k in range(3, n_items + 1)]
    movies = pd.DataFrame({"movieId": range(1, n_items + 1), "title": titles,
                           "genres": ["|".join(sorted(rng.choice(GENRES, 2, replace=False))) for _ in titles]})
    links = pd.DataFrame({"movieId": range(1, n_items + 1), "imdbId": [407304, 449040] + list(range(100001, 100079)),
                          "tmdbId": [74, 34812] + list(range(5001, 5079))})
    rows = []
    for u in range(1, n_users + 1):
        met = rng.choice(np.arange(1, n_items + 1), per_user, replace=False)
        if u <= 5:  # these users met both War of the Worlds
            met = np.r_[[1, 2], met[~np.isin(met, [1, 2])][:per_user - 2]]
        for k, i in enumerate(rng.permutation(met)):
            rows.append((u, int(i), float(rng.integers(1, 11)) / 2, 1_100_000_000 + 1000 * u + k))
    ratings = pd.DataFrame(rows, columns=["userId", "movieId", "rating", "timestamp"])
    d.mkdir(parents=True, exist_ok=True)
    ratings.to_csv(d / "ratings.csv", index=False)
    movies.to_csv(d / "movies.csv", index=False)
    links.to_csv(d / "links.csv", index=False)
    return d


def test_ml_latest_with_two_films_of_one_title_passes_the_audit(tmp_path):
    inter, items, _, report = ingest("mlsmall", {"format": "ml-latest"}, write_ml_latest(tmp_path / "raw"), {})
    works = item_keys(items)
    # ingest keeps them apart (two IMDb ids); a reader cannot tell them apart
    assert {"1", "2"} <= set(items["item_id"]) and enforced.same_work("1", "2", works)
    audit, violations, qs = build_and_audit("mlsmall", "movie", inter, items, DEFAULT, n=20)
    assert [v.line() for v in violations] == [] and audit["passed"]
    assert all(len(qs[m]) > 0 for m in DEFAULT), {m: len(q) for m, q in qs.items()}
    # and the users who met one War of the Worlds are never offered the other as a wrong item
    both = {"1", "2"}
    for m in ("neu_user2items",):
        for q in qs[m]:
            user = q["context"]["target_user"]
            met = set(inter.loc[inter.user_id == user, "item_id"])
            negs = [c for j, c in enumerate(q["candidates"]) if j != q["answer_index"]]
            if met & both:
                assert not set(negs) & both, q["qid"]
