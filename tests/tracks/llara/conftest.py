"""Fixtures for the LLaRA track: real released data from ../shared/data/llara (never copied)."""

from __future__ import annotations

import pytest

from lrworld.tracks.llara.candidates import draw_candidates
from lrworld.tracks.llara.data import load_released


def llara_cfg(shared_data, name):
    root = shared_data / "llara" / name
    if name == "movielens":
        return {"path": str(root), "titles": str(shared_data / "movielens-100k" / "raw" / "u.item")}
    if name == "steam":
        return {"path": str(root), "train_files": ["train_data_first1000.jsonl"], "train_expand": ["Val_data.jsonl"]}
    return {"path": str(root), "train_files": ["train_data.jsonl"]}


@pytest.fixture(scope="session")
def ml_set(shared_data):
    return load_released("movielens", llara_cfg(shared_data, "movielens"))


@pytest.fixture(scope="session")
def lastfm_set(shared_data):
    return load_released("lastfm", llara_cfg(shared_data, "lastfm"))


@pytest.fixture(scope="session")
def steam_set(shared_data):
    return load_released("steam", llara_cfg(shared_data, "steam"))


@pytest.fixture(scope="session")
def ml_cands(ml_set):
    return draw_candidates(ml_set, seed=0)


@pytest.fixture(scope="session")
def lastfm_cands(lastfm_set):
    return draw_candidates(lastfm_set, seed=0)


@pytest.fixture(scope="session")
def llara_cfg_for(shared_data):
    """name -> the config entry for one released dataset."""
    return lambda name: llara_cfg(shared_data, name)
