"""The audit on real ML-100K through the graph (slow): the six default measures pass it, their slot
sequences differ within and between datasets, and renaming one dataset leaves another's question
files byte-identical."""

import json
import re
from itertools import combinations

import pytest
import yaml

from lrworld.core.io import read_jsonl
from tests.graph import snakemake

pytestmark = pytest.mark.slow
SIX = ["assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items", "attr_genre"]
CHEAP = ["mem_item_item", "attr_genre"]  # no rule mining for the second datasets: the slow part


def _config(wd, shared_data, second):
    raw = {"path": str(shared_data / "movielens-100k/raw")}
    cfg = {"seed": 2024, "questions": {"per_measure": 30},
           "datasets": {"a": {"domain": "movie", "format": "ml-100k", "source": raw, "measures": SIX},
                        second: {"domain": "movie", "format": "ml-100k", "source": raw, "measures": CHEAP}},
           "models": {"random": {"backend": "random"}},
           "groundtruth": {"neumf": {"epochs": 1, "seeds": 1, "eval_users": 50, "device": "cpu"}}}
    (wd / "config.yaml").write_text(yaml.safe_dump(cfg))
    return [f"results/audit/{ds}.json" for ds in ("a", second)] + ["results/audit/_all.json"]


def _slots(wd, ds, m):
    return [q["answer_index"] for q in read_jsonl(wd / f"results/questions/{ds}/{m}.jsonl")]


def test_default_measures_pass_the_audit_and_renaming_changes_nothing_else(tmp_path, shared_data):
    snakemake(tmp_path, *_config(tmp_path, shared_data, "b"))
    audit = json.loads((tmp_path / "results/audit/a.json").read_text())
    assert audit["passed"] and set(audit["measures"]) == set(SIX)
    assert audit["equal_slot_sequences"]["pairs_compared"] == 15
    assert audit["titles"]["rewritten"] == 389
    assert json.loads((tmp_path / "results/audit/_all.json").read_text())["passed"]
    for m1, m2 in combinations(SIX, 2):
        assert _slots(tmp_path, "a", m1) != _slots(tmp_path, "a", m2), (m1, m2)
    for m in CHEAP:
        assert _slots(tmp_path, "a", m) != _slots(tmp_path, "b", m), m
    # what a reader sees: one title form, no format offered as a genre
    for p in read_jsonl(tmp_path / "results/prompts/a/attr_genre/zero_shot.jsonl"):
        assert not re.search(r", The \(", p["prompt"]) and "IMAX" not in p["candidates"]

    before = {m: (tmp_path / f"results/questions/a/{m}.jsonl").read_bytes() for m in SIX}
    snakemake(tmp_path, *_config(tmp_path, shared_data, "c"))
    assert {m: (tmp_path / f"results/questions/a/{m}.jsonl").read_bytes() for m in SIX} == before
    assert json.loads((tmp_path / "results/audit/c.json").read_text())["passed"]
    for m in CHEAP:
        assert _slots(tmp_path, "c", m) != _slots(tmp_path, "b", m), m
