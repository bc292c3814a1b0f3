"""rules/llara.smk inside the real graph: a config with a `llara` section plans the whole track
(Snakemake dry run of its table, no jobs executed)."""

import yaml

from tests.graph import job_counts, snakemake


def test_llara_rules_dry_run(tmp_path, shared_data):
    llara = shared_data / "llara"
    config = {
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                            "source": {"path": str(shared_data / "movielens-100k/raw")}}},
        "models": {"random": {"backend": "random", "seed": 0}},
        "llara": {
            "seed": 0, "n_candidates": 20, "max_epochs": 2, "baseline_seeds": 3, "baselines": ["popularity", "gru4rec"],
            "models": ["random"],
            "datasets": {
                "steam": {"path": str(llara / "steam"), "train_files": ["train_data_first1000.jsonl"],
                          "train_expand": ["Val_data.jsonl"], "template": "steam"},
                "lastfm": {"path": str(llara / "lastfm"), "train_files": ["train_data.jsonl"], "template": "lastfm"},
            },
        },
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    plan = job_counts(snakemake(tmp_path, "-n", "results/tables/llara.md").stdout)
    # one training job per dataset, baseline and seed (2 x 2 x 3); one score per dataset and row
    assert plan == {"llara_candidates": 2, "llara_prompts": 2, "model_identity": 1, "answer": 2, "llara_responses": 2,
                    "llara_baseline": 12, "llara_score": 6, "llara_table": 1}


def test_llara_dataset_names_are_checked(tmp_path, shared_data):
    config = {
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                            "source": {"path": str(shared_data / "movielens-100k/raw")}}},
        "models": {"random": {"backend": "random"}},
        "llara": {"datasets": {"../x": {"path": "/tmp"}}},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    proc = snakemake(tmp_path, "-n", check=False)
    assert proc.returncode != 0 and "config: llara.datasets: '../x' is not a valid name" in proc.stdout + proc.stderr
