"""The trained rows' backend is a registered backend that no `models` entry may name."""

import pytest

from lrworld.core.schema import ConfigError
from lrworld.models.registry import backends, configurable, make_backend
from lrworld.tracks.llara.hybrid.backend import HybridBackend


def test_the_answer_job_builds_it_by_name_and_config_refuses_it(tmp_path):
    cfg = {"backend": "llara_hybrid", "base_name": "smol", "base": {"model": "x"}, "adapter": "a",
           "projector": "p.pt", "rec_model": None, "form": "text", "max_new_tokens": 7, "batch_size": 3}
    b = make_backend("row", cfg)
    assert isinstance(b, HybridBackend) and b.max_new_tokens == 7 and b.batch_size == 3
    assert "llara_hybrid" in backends() and "llara_hybrid" not in configurable() and "hf" in configurable()

    from lrworld.config.assembly import validate

    with pytest.raises(ConfigError, match="models.row.backend"):
        validate({"datasets": {"ml": {"domain": "movie", "format": "ml-100k", "source": {"path": str(tmp_path)},
                                  "measures": ["attr_genre"]}},
                  "models": {"row": {"backend": "llara_hybrid"}}})
