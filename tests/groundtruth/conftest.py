"""Test helper: real ML-100K in the data contract (the lead's loader will replace this)."""

from __future__ import annotations

import pandas as pd
import pytest

from lrworld.data.contract import finalize_interactions, finalize_items

GENRES = ["unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
          "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery",
          "Romance", "Sci-Fi", "Thriller", "War", "Western"]


def load_ml100k(shared_data):
    raw = shared_data / "movielens-100k" / "raw"
    df = pd.read_csv(raw / "u.data", sep="\t", header=None,
                     names=["user_id", "item_id", "rating", "timestamp"])
    inter = finalize_interactions(df, "u.data")
    cols = ["item_id", "title", "release_date", "video_release_date", "url"] + GENRES
    it = pd.read_csv(raw / "u.item", sep="|", header=None, names=cols, encoding="latin-1")
    it["year"] = pd.to_datetime(it["release_date"], format="%d-%b-%Y", errors="coerce").dt.year
    flags = it[GENRES].to_numpy()
    it["genres"] = [[g for g, f in zip(GENRES, row) if f] for row in flags]
    items = finalize_items(it[["item_id", "title", "year", "genres"]])
    return inter, items


@pytest.fixture(scope="session")
def ml100k(shared_data):
    return load_ml100k(shared_data)


N_Q = 200  # questions per measure on ML-100K (enough for the chi-square on answer slots)


@pytest.fixture(scope="session")
def ml100k_rules(ml100k):
    from lrworld.groundtruth.rules import mine_rules

    rules, stats = mine_rules(ml100k[0], min_support=0.01, min_confidence=0.01, max_len=3, window=20)
    return rules, stats


@pytest.fixture(scope="session")
def ml100k_pairs(ml100k):
    import pandas as pd

    from lrworld.groundtruth.similarity import similar_pairs

    item, _ = similar_pairs(ml100k[0], "item", N_Q, threshold=0.01, seed=1, dataset="ml-100k")
    user, _ = similar_pairs(ml100k[0], "user", N_Q, threshold=0.01, seed=2, dataset="ml-100k")
    return pd.concat([item, user], ignore_index=True)


@pytest.fixture(scope="session")
def ml100k_neumf(ml100k):
    from lrworld.groundtruth.neumf import embeddings_frame, train_neumf

    res = train_neumf(ml100k[0], epochs=2, batch_size=1024, seed=0, device="cpu", eval_users=300,
                      log=lambda *_: None)
    return res, embeddings_frame(res)


@pytest.fixture(scope="session")
def ml100k_prototypes(ml100k, ml100k_neumf):
    from lrworld.groundtruth.prototypes import all_prototypes

    table, _ = all_prototypes(ml100k_neumf[1], ml100k[0], N_Q, k=10, seed=0, dataset="ml-100k")
    return table


@pytest.fixture(scope="session")
def ml100k_questions(ml100k, ml100k_rules, ml100k_pairs, ml100k_prototypes):
    from lrworld.groundtruth import questions as Q

    inter = ml100k[0]
    built = {
        "assoc_rule": Q.build_assoc_rule_questions(inter, ml100k_rules[0], N_Q, 11, "ml-100k"),
        "mem_item_item": Q.build_mem_item_item_questions(inter, ml100k_pairs, N_Q, 12, "ml-100k"),
        "mem_user_user": Q.build_mem_user_user_questions(inter, ml100k_pairs, N_Q, 13, "ml-100k"),
        "neu_item2users": Q.build_neu_item2users_questions(inter, ml100k_prototypes, N_Q, 14, "ml-100k"),
        "neu_user2items": Q.build_neu_user2items_questions(inter, ml100k_prototypes, N_Q, 15, "ml-100k"),
    }
    return {m: qs for m, (qs, _) in built.items()}
