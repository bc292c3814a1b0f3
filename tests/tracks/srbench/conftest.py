"""ML-100K in the contract layout, built from the real GroupLens files (the spine's loader will
replace `ml100k_from_raw`)."""

from __future__ import annotations

import pytest

from lrworld.tracks.srbench.data import make_split, ml100k_from_raw


@pytest.fixture(scope="session")
def ml100k(shared_data):
    return ml100k_from_raw(shared_data / "movielens-100k" / "raw")


@pytest.fixture(scope="session")
def ml100k_split(ml100k):
    inter, items = ml100k
    return make_split(inter, items, "ml-100k")
