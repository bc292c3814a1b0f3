"""A released LLaRA model as a table row (`llara.checkpoint`, docs/llara.md): per dataset, LLaRA's
published Lightning checkpoint (projector + LoRA, ``save='part'``) and the rec model whose item
embeddings it was trained with (``rec_model/<dataset>.pt``), each a file by ``path`` or ``url`` with
its ``sha256``. The plan fetches both (`llara_released_file`), and the one `answer` rule asks the
hybrid requests through them on the entry's `hf` base model. No torch here: the plan reads it."""

from __future__ import annotations

from lrworld.core.schema import ConfigError
from lrworld.tracks.llara.hybrid.entries import HYBRID_BACKEND, PAPER_REC, check_base

FILES = {"ckpt": "checkpoint.ckpt", "rec_model": "rec_model.pt"}  # config key -> the fetched file's name


def check(entry: dict | None, models: dict, datasets: dict, taken) -> dict[str, dict]:
    """{row name: entry} (empty without `llara.checkpoint`); impossible entries refused in one line."""
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


def answer_cfg(dataset: str, entry: dict, base_params: dict, lora: dict) -> dict:
    """The answer job's backend config: the base model's entry, the released checkpoint and rec model."""
    return {"backend": HYBRID_BACKEND, "base_name": entry["base"], "base": dict(base_params),
            "checkpoint": file_path(dataset, "ckpt"), "rec_model": file_path(dataset, "rec_model"),
            "rec_format": "llara", "lora": dict(lora), "form": "hybrid",
            "max_new_tokens": int(entry["max_new_tokens"]), "batch_size": int(entry["batch_size"])}
