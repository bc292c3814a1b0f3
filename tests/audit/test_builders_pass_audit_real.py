"""Every question builder on every real dataset in ../shared/data the project ingests (ML-100K raw
with IMDb details and HetRec directors, ML-100K as RecBole atomic files, LLaRA's Last.fm with
HetRec tags, Amazon Beauty 2014 over the real 5-core sequences) builds questions the audit passes,
a few per measure (slow)."""

import pytest

from lrworld.data.ingest import ingest_with_facts
from lrworld.questions import measures
from tests.support.build_and_audit import build_and_audit
from tests.support.fixtures_amazon import write_amazon_2014_beauty
from tests.support.fixtures_lastfm import write_user_taggedartists

pytestmark = pytest.mark.slow
N = 8  # questions per measure


def _ml100k_raw(shared_data, tmp_path):
    d, h = shared_data / "movielens-100k", shared_data / "hetrec2011-movielens-2k"
    return ("movie", {"format": "ml-100k"}, d / "raw",
            {"imdb_details": d / "imdb-details/movielens100k_details.json",
             "hetrec_directors": [h / "movie_directors.dat"], "hetrec_movies": [h / "movies.dat"]})


def _ml100k_recbole(shared_data, tmp_path):
    return ("movie", {"format": "recbole-atomic", "prefix": "ml-100k"}, shared_data / "movielens-100k/recbole-atomic",
            {})


def _lastfm(shared_data, tmp_path):
    het = shared_data / "hetrec2011-lastfm-2k"
    write_user_taggedartists(tmp_path / "user_taggedartists.dat", het / "artists.dat", het / "tags.dat", seed=0)
    return ("lastfm", {"format": "lastfm-llara"}, shared_data / "llara/lastfm",
            {"hetrec_lastfm_artists": het / "artists.dat", "hetrec_lastfm_tags": het / "tags.dat",
             "hetrec_lastfm_user_taggedartists": tmp_path / "user_taggedartists.dat"})


def _beauty(shared_data, tmp_path):
    write_amazon_2014_beauty(tmp_path, shared_data / "amazon-beauty-5core-gram/user_sequence.txt", n_users=3000)
    return ("product", {"format": "amazon-2014", "prefix": "Beauty"}, tmp_path, {}, 0.002)


@pytest.mark.parametrize("source", [_ml100k_raw, _ml100k_recbole, _lastfm, _beauty],
                         ids=["ml100k-raw-imdb-hetrec", "ml100k-recbole", "llara-lastfm", "amazon-beauty-2014"])
def test_every_builder_passes_the_audit_on_real_data(source, shared_data, tmp_path):
    domain, cfg, raw, meta, *support = source(shared_data, tmp_path)
    inter, items, _, _, facts = ingest_with_facts("real", cfg, raw, meta)
    # every measure of the domain whose inputs the data has (multimodal needs the captions rule)
    ids = [m.id for m in measures.for_domain(domain)
           if not m.needs and (m.field is None or (m.field in items.columns
                                                   and items[m.field].map(_has).any()))]
    audit, violations, qs = build_and_audit("real", domain, inter, items, ids, n=N, facts=facts,
                                            allow_unbuildable=True, min_support=(support or [0.01])[0])
    assert [v.line() for v in violations[:5]] == []
    assert audit["passed"] and all(qs[m] for m in qs), {m: len(q) for m, q in qs.items()}
    # every ground-truth measure and most knowledge measures were built
    assert {m for m in ids if measures.by_id(m).artifact} <= set(qs) and len(qs) >= len(ids) - 2, sorted(qs)


def _has(v) -> bool:
    try:
        return len(v) > 0
    except TypeError:
        return v is not None and v == v
