"""The GPU paper check's config: the paper's dataset entry restricted to one measure at the paper's
count, the model enabled beside RANDOM; and its --smoke config on the checkout's own data."""

import argparse

from benchmarks import gpu_paper_check as G
from lrworld.config import assembly


def _args(**kw):
    return argparse.Namespace(**{"smoke": False, "model": "qwen2-7b-instruct", "dataset": "ml25m",
                                 "measure": "attr_genre", "n": None, "mode": None, **kw})


def test_default_asks_the_papers_count_on_its_dataset():
    args = _args()
    assert G.paper_count(args) == 297  # Table 13: <movie, genre> over 297 questions
    cfg = G.config(_args(n=G.paper_count(args)))
    assembly.validate(cfg)
    assert cfg["questions"]["per_measure"] == 297 and cfg["datasets"]["ml25m"]["measures"] == ["attr_genre"]
    assert cfg["datasets"]["ml25m"]["format"] == "ml-latest"
    assert cfg["models"]["qwen2-7b-instruct"]["enabled"] and cfg["models"]["qwen2-7b-instruct"]["paper_name"] == "Qwen-2"
    assert list(cfg["models"]) == ["random", "qwen2-7b-instruct"]
    assert G.paper_count(_args(dataset="netflix", measure="kg_cast")) == 488


def test_smoke_config_is_the_checkouts_data():
    cfg = G.config(_args(smoke=True, model="smollm2-135m", dataset="ml100k", n=20, mode="choice"))
    assembly.validate(cfg)
    ds = cfg["datasets"]["ml100k"]
    assert ds["paper_table"] == "movielens" and ds["source"]["path"].endswith("movielens-100k/raw")
    assert cfg["models"]["smollm2-135m"]["mode"] == "choice" and cfg["analysis"] == {"enabled": False}
