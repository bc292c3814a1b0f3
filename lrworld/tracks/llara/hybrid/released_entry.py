"""A released LLaRA model as a table row (`llara.checkpoint`, docs/llara.md): per dataset, LLaRA's
published Lightning checkpoint (projector + LoRA, ``save='part'``) and the rec model whose item
embeddings it was trained with (``rec_model/<dataset>.pt``), each a file by ``path`` or ``url`` with
its ``sha256``. The plan fetches both (`llara_released_file`), and the one `answer` rule asks the
hybrid requests through them on the entry's `hf` base model. No torch here: the plan reads it."""

from __future__ import annotations

from lrworld.core.schema import ConfigError
from lrworld.tracks.llara.hybrid.entries import HYBRID_BACKEND, PAPER_REC, check_base
from lrworld.tracks.llara.prompts import RELEASED_TEMPLATES

FILES = {"ckpt": "checkpoint.ckpt", "rec_model": "rec_model.pt"}  # config key -> the fetched file's name
LORA_KEYS = ("lora_r", "lora_alpha", "lora_dropout")
# LLaRA's test scripts (test_<dataset>.sh:7): --cans_num 20, the count its checkpoints were trained with
LLARA_CANS_NUM = 20


def llara_kind(name: str, cfg: dict) -> str | None:
    """The kind of one of LLaRA's released sets (its files by ``path``); None for sets built here."""
    kind = cfg.get("kind", name)
    return kind if "path" in cfg and kind in RELEASED_TEMPLATES else None


def template(name: str, cfg: dict) -> str:
    """A released checkpoint's prompt file on a dataset: LLaRA's whole file for LLaRA's sets (the
    instructions it was trained and tested with), else the dataset's template."""
    kind = llara_kind(name, cfg)
    return RELEASED_TEMPLATES[kind] if kind else cfg.get("template", name)


def check(entry: dict | None, models: dict, datasets: dict, taken,
          n_candidates: int = LLARA_CANS_NUM) -> dict[str, dict]:
    """{row name: entry} (empty without `llara.checkpoint`); impossible entries refused in one line.
    On LLaRA's sets a released checkpoint is scored as it was trained: 20 candidates, and on
    MovieLens LLaRA's own titles (``title_form: llara``)."""
    if not entry:
        return {}
    where = "config: llara.checkpoint"
    name = entry["name"]
    if name in taken:
        raise ConfigError(f"{where}.name: {name!r} is already a row or model name; choose another")
    check_base(where, entry["base"], models, "a released LLaRA checkpoint is a LoRA adapter on an `hf` model")
    for d, files in entry["datasets"].items():
        if d not in datasets:
            raise ConfigError(f"{where}.datasets.{d}: not a llara.datasets entry {sorted(datasets)}")
        kind = llara_kind(d, datasets[d])
        if kind and n_candidates != LLARA_CANS_NUM:
            raise ConfigError(f"config: llara.n_candidates: {n_candidates}, but a released LLaRA checkpoint was "
                              f"trained and tested with {LLARA_CANS_NUM} candidates (test_{kind}.sh --cans_num); "
                              f"set {LLARA_CANS_NUM}")
        if kind == "movielens" and datasets[d].get("title_form", "display") != "llara":
            raise ConfigError(f"config: llara.datasets.{d}.title_form: a released LLaRA checkpoint is scored with the "
                              f"titles it was trained with; set title_form: llara")
        for key in FILES:
            spec = files[key]
            if ("url" in spec) == ("path" in spec):
                raise ConfigError(f"{where}.datasets.{d}.{key}: give exactly one of url or path (with its sha256)")
            if "url" in spec and "sha256" not in spec:
                raise ConfigError(f"{where}.datasets.{d}.{key}.sha256: needed with url (a download is checked "
                                  f"against it)")
    return {name: entry}


def file_path(dataset: str, key: str) -> str:
    return f"results/llara/{dataset}/released/{FILES[key]}"


def kind(entry: dict) -> str:
    return f"LLaRA({PAPER_REC[entry['rec']]}), released checkpoint"


def paper_row(entry: dict) -> str:
    return f"LLaRA({PAPER_REC[entry['rec']]})"


def answer_inputs(dataset: str) -> list[str]:
    return [file_path(dataset, k) for k in FILES]


def answer_cfg(dataset: str, entry: dict, base_params: dict, train: dict, n_candidates: int) -> dict:
    """The answer job's backend config: the base model's entry, the released checkpoint and rec model.
    LoRA: the checkpoint's recorded settings (``hyper_parameters``); ``lora`` = the entry's, which must
    agree with them when given; ``lora_default`` (llara.train: LLaRA's main.py defaults) where the
    checkpoint records none."""
    return {"backend": HYBRID_BACKEND, "base_name": entry["base"], "base": dict(base_params),
            "checkpoint": file_path(dataset, "ckpt"), "rec_model": file_path(dataset, "rec_model"),
            "rec_format": "llara", "lora": dict(entry["lora"]) if entry.get("lora") else None,
            "lora_default": {k: train[k] for k in LORA_KEYS}, "n_candidates": int(n_candidates), "form": "hybrid",
            "max_new_tokens": int(entry["max_new_tokens"]), "batch_size": int(entry["batch_size"])}
