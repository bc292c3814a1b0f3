"""The paper's construction (config/paper.yaml's `questions` and `groundtruth.neural`: uniform
distractors, no gold cap, no filter, the cosine gold) builds the very bytes it built before the
valid construction became the default: ML-100K's question files through the real graph, 50 per
measure, seed 2024. The four measures whose golds come from the interactions alone are pinned (the
neural ones depend on NeuMF's float arithmetic, which another CPU may round otherwise)."""

import hashlib

import pytest
import yaml

from tests.graph import ROOT, snakemake

pytestmark = pytest.mark.slow

PINNED = {
    "assoc_rule": "a83b4779036b4b43a8e8da6be7647421691231642a626d9788289da6b81c9e8b",
    "attr_genre": "7154d8b84028a34d25cdc267dfa6c91480928a7566f47cb54af9700f52fb8841",
    "mem_item_item": "b663d48193c9ec0819c92d9d3b396cf90e99555e217679991db58f1d540ff11c",
    "mem_user_user": "1c5260e66c725d6aa51f64f61b8faf2047ab9463a244845a7ebc536544d0bf75",
}


def test_the_papers_construction_builds_the_same_bytes(tmp_path, shared_data):
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    default = yaml.safe_load((ROOT / "config.yaml").read_text())
    ml100k = dict(default["datasets"]["ml100k"], source={"path": str(shared_data / "movielens-100k/recbole-atomic")})
    cfg = {"seed": 2024, "cache_dir": str(tmp_path / "cache"), "docs_snippets": False,
           "questions": {**{k: paper["questions"][k] for k in ("distractors", "max_gold_share", "validity")},
                         "per_measure": 50},
           "groundtruth": {"neural": paper["groundtruth"]["neural"]},
           "datasets": {"ml100k": {**ml100k, "measures": sorted(PINNED)}}, "models": {"random": {"backend": "random"}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, *[f"results/questions/ml100k/{m}.jsonl" for m in PINNED])
    got = {m: hashlib.sha256((tmp_path / f"results/questions/ml100k/{m}.jsonl").read_bytes()).hexdigest()
           for m in PINNED}
    assert got == PINNED
