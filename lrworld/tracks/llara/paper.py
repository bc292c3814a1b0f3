"""LLaRA's published results (arXiv 2312.02445 v4, the results table): ValidRatio and HitRatio@1
of every model on MovieLens, Steam and LastFM, for the table and docs to compare against.

The paper's HitRatio@1 is over all questions (correct / all; LLaRA's code logs
``hr * prediction_valid_ratio``), our ``hit_ratio_at_1_all``. Its traditional models are the mean
of 5 seeds; its LLM cells with ValidRatio < 1 are whole counts over the n test questions
(Llama2 on LastFM: 0.0246 = 3/122, where correct / valid would be 3/42 = 0.0714).
"""

from __future__ import annotations

from lrworld.core.markdown import pipe_table

DATASETS = ("movielens", "steam", "lastfm")
N_QUESTIONS = {"movielens": 95, "steam": 1186, "lastfm": 122}

# model -> dataset -> (ValidRatio, HitRatio@1), in the paper's row order
RESULTS: dict[str, dict[str, tuple[float, float]]] = {
    "GRU4Rec": {"movielens": (1.0, 0.3750), "steam": (1.0, 0.4168), "lastfm": (1.0, 0.2616)},
    "Caser": {"movielens": (1.0, 0.3861), "steam": (1.0, 0.4368), "lastfm": (1.0, 0.2233)},
    "SASRec": {"movielens": (1.0, 0.3444), "steam": (1.0, 0.4010), "lastfm": (1.0, 0.2233)},
    "Llama2": {"movielens": (0.4421, 0.0421), "steam": (0.1653, 0.0135), "lastfm": (0.3443, 0.0246)},
    "GPT-4": {"movielens": (0.9895, 0.2000), "steam": (0.9798, 0.3626), "lastfm": (1.0, 0.3770)},
    "MoRec": {"movielens": (1.0, 0.2822), "steam": (1.0, 0.3911), "lastfm": (1.0, 0.1652)},
    "TALLRec": {"movielens": (0.9263, 0.3895), "steam": (0.9840, 0.4637), "lastfm": (0.9836, 0.4180)},
    "LLaRA(GRU4Rec)": {"movielens": (0.9684, 0.4421), "steam": (0.9975, 0.4924), "lastfm": (0.9836, 0.4344)},
    "LLaRA(Caser)": {"movielens": (0.9684, 0.4737), "steam": (0.9966, 0.4874), "lastfm": (0.9918, 0.4344)},
    "LLaRA(SASRec)": {"movielens": (0.9684, 0.4421), "steam": (0.9975, 0.4949), "lastfm": (1.0, 0.4508)},
}

# LLaRA's README (ljy0ustc/LLaRA README.md lines 3-10, "the most recent results of LLaRA" after the
# 2024.7 bug fixes): its three LLaRA rows, the figures its released checkpoints go with
README_SOURCE = "LLaRA's README (2024.7)"
README_RESULTS: dict[str, dict[str, tuple[float, float]]] = {
    "LLaRA(GRU4Rec)": {"movielens": (0.9684, 0.4000), "steam": (0.9840, 0.4916), "lastfm": (0.9672, 0.4918)},
    "LLaRA(Caser)": {"movielens": (0.9684, 0.4211), "steam": (0.9519, 0.4621), "lastfm": (0.9754, 0.4836)},
    "LLaRA(SASRec)": {"movielens": (0.9789, 0.4526), "steam": (0.9958, 0.5051), "lastfm": (0.9754, 0.5246)},
}
PAPER_SOURCE = "arXiv 2312.02445 v4"

# our table rows that are the paper's models (traditional recommenders, same role and name)
ROW_OF = {"baseline_gru4rec": "GRU4Rec", "baseline_caser": "Caser", "baseline_sasrec": "SASRec"}


def figures(row: str, dataset: str | None, rows: dict[str, str] | None = None) -> tuple[float, float] | None:
    """(ValidRatio, HitRatio@1) the paper reports for our ``row`` on the paper's ``dataset``
    (None when the row or the dataset is not in the paper). ``rows``: more of our rows -> the
    paper's model (LLaRA-trained rows)."""
    model = ROW_OF.get(row) or (rows or {}).get(row)
    return RESULTS[model].get(dataset) if model and dataset else None


def readme_figures(row: str, dataset: str | None, rows: dict[str, str] | None = None) -> tuple[float, float] | None:
    """(ValidRatio, HitRatio@1) of LLaRA's README for our ``row`` (its LLaRA rows only)."""
    model = ROW_OF.get(row) or (rows or {}).get(row)
    return README_RESULTS[model].get(dataset) if model in README_RESULTS and dataset else None


def markdown(results: dict | None = None, label: str = "paper") -> str:
    """A published table as Markdown (ValidRatio / HitRatio@1 per dataset): the paper's by default."""
    head = [f"model ({label})"] + [f"{d} {k}" for d in DATASETS for k in ("ValidRatio", "HitRatio@1")]
    rows = ([m] + [f"{x:.4f}" for d in DATASETS for x in r[d]] for m, r in (results or RESULTS).items())
    return "\n".join(pipe_table(head, rows)) + "\n"
