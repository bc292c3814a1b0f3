"""A config over the three LRWorld domains on fixtures (Amazon 2018 and Netflix in their published
formats, generated) plus the real ML-100K + IMDb details and LLaRA LastFM from shared data, with
every measure that has a question builder. Used by the plan test and for trying the graph:

    python -m tests.support.fixtures_config OUT_DIR SHARED_DATA   # writes OUT_DIR/config.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from lrworld.questions import measures
from tests.support.fixtures_amazon import write_amazon_2018
from tests.support.fixtures_lastfm import write_user_taggedartists
from tests.support.fixtures_netflix import write_netflix


def built(domain: str) -> list[str]:
    return measures.measure_ids(domain)


def _images(folder: Path, item_ids, seed: int) -> None:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for i in item_ids:
        Image.new("RGB", (48, 64), tuple(int(x) for x in rng.integers(0, 256, 3))).save(folder / f"{i}.png")


def write_fixture_config(out: str | Path, shared: str | Path, n_questions: int = 20,
                         tiny_captioner: str | Path | None = None) -> dict:
    """With `tiny_captioner` (a tiny LLaVA folder), Amazon and Netflix get generated images and the
    captioner runs on CPU, so the multimodal measure runs end to end; ML-100K's multimodal is left
    out then (1,682 posters)."""
    out, shared = Path(out), Path(shared)
    amz = write_amazon_2018(out / "amazon", n_users=60, n_items=80, seed=0)
    nf = write_netflix(out / "netflix", n_users=150, seed=0, extra_movies=60)
    het = shared / "hetrec2011-lastfm-2k"
    write_user_taggedartists(out / "user_taggedartists.dat", het / "artists.dat", het / "tags.dat", seed=0)
    cfg = {
        "seed": 2024,
        "cache_dir": str(out / "cache"),
        "questions": {"history_length": 5, "per_measure": n_questions},
        "variants": ["zero_shot", "cot"],
        "datasets": {
            "amazon": {"domain": "product", "format": "amazon-2018", "prefix": "Home_and_Kitchen",
                       "source": {"path": str(out / "amazon")}, "measures": built("product")},
            "ml100k": {"domain": "movie", "format": "ml-100k",
                       "source": {"path": str(shared / "movielens-100k/raw")},
                       "metadata": {"imdb_details": str(shared / "movielens-100k/imdb-details/movielens100k_details.json")},
                       "measures": built("movie")},
            "netflix": {"domain": "movie", "format": "netflix", "parts": [1, 2],
                        "source": {"path": str(out / "netflix")},
                        "metadata": {"netflix_metadata": str(nf["metadata"])}, "measures": built("movie")},
            "lastfm": {"domain": "lastfm", "format": "lastfm-llara", "source": {"path": str(shared / "llara/lastfm")},
                       "metadata": {"hetrec_lastfm_artists": str(het / "artists.dat"),
                                    "hetrec_lastfm_tags": str(het / "tags.dat"),
                                    "hetrec_lastfm_user_taggedartists": str(out / "user_taggedartists.dat")},
                       "measures": built("lastfm")},
        },
        "captioner": {"backend": "llava"} if tiny_captioner is None else
        {"backend": "llava", "model": str(tiny_captioner), "device": "cpu", "max_new_tokens": 8},
        "models": {"random": {"backend": "random", "seed": 0}},
    }
    if tiny_captioner is not None:
        _images(out / "amazon_images", amz["truth"], 0)
        _images(out / "netflix_images", nf["truth"], 1)
        cfg["datasets"]["amazon"]["image_dir"] = str(out / "amazon_images")
        cfg["datasets"]["netflix"]["image_dir"] = str(out / "netflix_images")
        cfg["datasets"]["ml100k"]["measures"] = [m for m in built("movie") if m != "multimodal"]
    (out / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return cfg


if __name__ == "__main__":
    write_fixture_config(sys.argv[1], sys.argv[2], tiny_captioner=sys.argv[3] if len(sys.argv) > 3 else None)
