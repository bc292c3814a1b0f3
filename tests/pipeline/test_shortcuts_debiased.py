"""The valid construction (config/debiased.yaml) on the default run's data and measures, through
the real graph with RANDOM and the shortcut rows: the audit passes (every gold true, every
distractor false), no shortcut and not the learned answerer lies above chance on any measure
(popularity, label prior, hubs, text length, words shared with the history, a slot, the printed year
and categories) except a rule reading the measure's own signal, the positive control finds the
golds of the interactions' measures, the neural golds all have the minimum of training
interactions, and every measure keeps what was asked or says why not."""

import json

import pandas as pd
import pytest
import yaml

from lrworld.scoring.table import LEARNED_ROW
from lrworld.groundtruth.eligibility import training_counts
from tests.graph import ROOT, snakemake

pytestmark = [pytest.mark.slow, pytest.mark.validity]  # with the validity suite: `make test-validity`

MEASURES = ["assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items", "attr_genre"]
# at least these rows: what the counts, the other questions' golds and the texts give away
SHORTCUTS = ("most_popular", "least_popular", "gold_prior", "shortest_text", "longest_text", "history_overlap",
             "first_slot")
# the shortcut that reads a measure's own signal: two users are similar by the items they share
OWN = {"mem_user_user": ["history_overlap"]}


def test_matched_distractors_and_a_gold_cap_leave_no_count_shortcut(tmp_path, shared_data):
    models = {k: v for k, v in yaml.safe_load((ROOT / "config.yaml").read_text())["models"].items()
              if v["backend"] in ("random", "shortcut")}
    valid = yaml.safe_load((ROOT / "config/debiased.yaml").read_text())
    debiased = valid["questions"]
    cfg = {"seed": 2024, "cache_dir": str(tmp_path / "cache"), "docs_snippets": False, "analysis": {"enabled": False},
           "questions": {"per_measure": 50, **debiased},
           # one short training: the property is of how options are drawn, not of NeuMF's settings
           "groundtruth": {"neumf": {"epochs": 2, "seeds": 1}, "neural": valid["groundtruth"]["neural"]},
           "datasets": {"ml100k": {"domain": "movie", "format": "ml-100k",
                                   "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": MEASURES}},
           "models": models}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, "results/tables/ml100k.csv")
    audit = json.loads((tmp_path / "results/audit/ml100k.json").read_text())
    assert audit["passed"] and audit["violations"] == 0
    for m in MEASURES:
        result = audit["shortcuts"]["measures"][m]
        found = result["shortcuts"]
        assert set(found) >= set(SHORTCUTS)
        above = [n for n, r in found.items() if r["above_chance"] and not r.get("own_signal")]
        assert not above and not result["findings"], (m, {n: found[n] for n in above})
        # the measure's own signal: memory user-user similarity is the items two users share
        assert [n for n, r in found.items() if r.get("own_signal")] == OWN.get(m, [])
        # the learned knowledge-free answerer is at chance too; the data answers what it claims
        checked = audit["validity"]["measures"][m]
        assert not checked["learned"]["above_chance"] and checked["findings"] == [], (m, checked)
        assert checked["answerable"] or m == "attr_genre", (m, checked["positive"])
        report = json.loads((tmp_path / f"results/questions/ml100k/{m}.report.json").read_text())
        # what the filter kept: 50, or fewer where it had to drop more (the report says why)
        assert report["validity"]["passes"] and report["validity"]["kept"] == report["questions"], (m, report)
        assert 25 <= report["questions"] <= 50 and (report["questions"] == 50 or report["short"]), (m, report)
    # a rule whose consequent the pool cannot match on the words shared with its antecedents is dropped, counted
    report = json.loads((tmp_path / "results/questions/ml100k/assoc_rule.report.json").read_text())
    assert report["dropped_no_overlap_matched_distractors"] > 0 and report["dropped_no_matched_distractors"] > 0
    table = pd.read_csv(tmp_path / "results/tables/ml100k.csv")
    # RANDOM first, the learned knowledge-free row and the shortcut rows beside it, a score in every measure's column
    assert list(table["model"][:2]) == ["random", LEARNED_ROW] and sorted(table["model"]) == sorted([*models, LEARNED_ROW])
    assert table[MEASURES].notna().all().all()
    counts = training_counts(pd.read_parquet(tmp_path / "results/data/ml100k/interactions.parquet"))
    for m, kind in (("neu_user2items", "item"), ("neu_item2users", "user")):
        qs = [json.loads(line) for line in (tmp_path / f"results/questions/ml100k/{m}.jsonl").read_text().splitlines()]
        assert min(counts[kind].get(c, 0) for q in qs for c in q["candidates"]) >= 5
