"""Mini LastFM: LLaRA's real LastFM test set, genres from HetRec tags (user_taggedartists.dat in its
exact format, generated: the real file is not on these machines)."""

import pytest

from lrworld.core.schema import ConfigError
from lrworld.data.ingest import ingest
from lrworld.prompts.render import render_all, template_path
from lrworld.questions.build import build_questions
from tests.support.fixtures_lastfm import write_user_taggedartists


@pytest.fixture(scope="module")
def llara(shared_data):
    return shared_data / "llara/lastfm"


def test_next_artist_over_the_122_test_users(llara):
    inter, items, users, report = ingest("lfm", {"format": "lastfm-llara"}, llara, {})
    assert inter["user_id"].nunique() == 122 and report["lastfm-llara"]["artists"] == 4606
    qs, rep = build_questions("lfm", "lastfm", "next_artist", inter, items, 5, None, 0)
    assert len(qs) == 122 and rep["history_length"] is None
    names = dict(zip(items["item_id"], items["title"]))
    q0 = next(q for q in qs if q["user_id"] == "0")
    # row 0: 6 artists of history (len_seq 6), then artist 578
    assert q0["history"] == ["392", "225", "234", "576", "577", "272"] and q0["target_item"] == "578"
    (p,) = render_all([q0], template_path("lastfm", "next_artist", "zero_shot"), items, "zero_shot")
    assert p["prompt"].startswith(f"This user has listened to {names['392']}, {names['225']}")
    assert "The artist name candidates are " + ", ".join(p["candidates"]) + "." in p["prompt"]
    assert p["candidates"][p["answer_index"]] == names["578"]


def test_artist_genre_from_top_tag(llara, shared_data, tmp_path):
    het = shared_data / "hetrec2011-lastfm-2k"
    tagged = tmp_path / "user_taggedartists.dat"
    write_user_taggedartists(tagged, het / "artists.dat", het / "tags.dat", seed=0)
    meta = {"hetrec_lastfm_artists": het / "artists.dat", "hetrec_lastfm_tags": het / "tags.dat",
            "hetrec_lastfm_user_taggedartists": tagged}
    inter, items, _, report = ingest("lfm", {"format": "lastfm-llara"}, llara, meta)
    g = report["joins"]["hetrec_lastfm_genres"]
    assert g["aligned"] == 4605 and g["artists"] == 4606  # SOURCES.md: 4,605 of 4,606 names match
    qs, rep = build_questions("lfm", "lastfm", "attr_artist_genre", inter, items, 5, None, 0)
    assert len(qs) + sum(rep["skipped"].values()) == 122 and len(qs) > 100
    genre = {i: v[0] for i, v in zip(items["item_id"], items["genres"]) if len(v)}
    for q in qs:
        assert q["candidates"][q["answer_index"]] == genre[q["target_item"]] and len(set(q["candidates"])) == 4
    with pytest.raises(ConfigError, match="hetrec_lastfm_artists needs"):
        ingest("lfm", {"format": "lastfm-llara"}, llara, {"hetrec_lastfm_artists": het / "artists.dat"})
