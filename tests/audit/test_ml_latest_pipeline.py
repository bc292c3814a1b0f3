"""The ml-latest fixture whose users met both *War of the Worlds (2005)* builds, through the graph,
to a results table with the default measures: its audit passes (slow)."""

import json

import pandas as pd
import pytest
import yaml

from tests.audit.test_builders_pass_audit import DEFAULT, write_ml_latest
from tests.graph import snakemake

pytestmark = pytest.mark.slow


def test_ml_latest_with_two_films_of_one_title_builds_to_a_table(tmp_path):
    raw = write_ml_latest(tmp_path / "raw")
    cfg = {"seed": 1, "questions": {"per_measure": 10}, "groundtruth": {"n_questions": 10,
                                                                       "neumf": {"epochs": 1, "seeds": 1,
                                                                                 "eval_users": 20, "device": "cpu"}},
           "datasets": {"mlsmall": {"domain": "movie", "format": "ml-latest", "source": {"path": str(raw)},
                                    "measures": DEFAULT}},
           "models": {"random": {"backend": "random"}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, "results/tables/mlsmall.csv")
    audit = json.loads((tmp_path / "results/audit/mlsmall.json").read_text())
    assert audit["passed"] and set(audit["measures"]) == set(DEFAULT)
    table = pd.read_csv(tmp_path / "results/tables/mlsmall.csv").set_index("model")
    assert set(DEFAULT) <= set(table.columns) and table.loc["random", DEFAULT].between(0, 1).all()
