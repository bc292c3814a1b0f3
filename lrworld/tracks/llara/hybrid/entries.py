"""LLaRA-trained rows (`llara.trained`, schema in lrworld/schema/config.schema.yaml): what each
entry trains (`llara_train`), the requests it is asked (hybrid or text form) and the answer
backend config it is asked with through the one `answer` rule. No torch here: the plan reads it."""

from __future__ import annotations

from lrworld.core.schema import ConfigError
from lrworld.models.registry import capabilities

# The answer job's backend for a trained entry (lrworld/tracks/llara/hybrid/backend.py). Not a
# `models` backend: its config is made by the plan from an entry, per dataset.
HYBRID_BACKEND = "llara_hybrid"
FORMS = ("hybrid", "text")
# a released checkpoint's requests: hybrid, with LLaRA's instructions drawn per question
RELEASED_FORM = "released"
PAPER_REC = {"gru4rec": "GRU4Rec", "caser": "Caser", "sasrec": "SASRec"}


def check_base(where: str, name: str, models: dict, why: str) -> dict:
    """The `models` entry a LLaRA row is built on: it must exist and use the `hf` backend."""
    base = models.get(name)
    if base is None:
        raise ConfigError(f"{where}.base: unknown model {name!r} (a `models` entry with backend hf)")
    if not capabilities(base).causal_lm:
        raise ConfigError(f"{where}.base: {name!r} has backend {base.get('backend')!r}; {why}")
    return base


def check(entries: list[dict], models: dict, baselines: list[str], baseline_seeds: int, taken) -> dict[str, dict]:
    """{training name: entry} of ``llara.trained``, one per training: an entry with ``seeds: N``
    (N > 1) is N trainings, seeds ``seed .. seed+N-1``, named ``<name>-s<seed>`` and shown as one
    row ``name`` (mean ± sd, as the traditional rows); with one seed the training is the row.
    Each training's entry holds its ``seed`` and ``row``. Impossible entries are refused in one
    line naming the key."""
    out: dict[str, dict] = {}
    row_names: set[str] = set()  # the entries' names (the `rows` function maps trainings to them)
    for i, e in enumerate(entries):
        where = f"config: llara.trained[{i}]"
        name = e["name"]
        if name in row_names or name in out or name in taken:
            raise ConfigError(f"{where}.name: {name!r} is already a row or model name; choose another")
        check_base(where, e["base"], models, "LLaRA trains a LoRA adapter on an `hf` model")
        rec = e.get("rec")
        if rec is None and e["hybrid_share"] > 0:
            raise ConfigError(f"{where}.rec: needed when hybrid_share > 0 (the behavioural tokens come from a "
                              f"traditional model); set rec, or hybrid_share: 0 for the text-only LoRA")
        if rec is not None and e["hybrid_share"] == 0:
            raise ConfigError(f"{where}.rec: a text-only entry (hybrid_share 0) reads no rec model; remove rec")
        if rec is not None and rec not in baselines:
            raise ConfigError(f"{where}.rec: {rec!r} is not in llara.baselines {baselines}")
        if rec is None and "rec_seed" in e:
            raise ConfigError(f"{where}.rec_seed: a text-only entry reads no rec model; remove rec_seed")
        trainings = training_names(e)
        for t_name, t_entry in trainings.items():
            if rec is not None and rec_seed(t_entry) >= baseline_seeds:
                # a seeded row reads the rec model's seed of each training unless rec_seed fixes one
                key = "seeds" if len(trainings) > 1 and "rec_seed" not in e else "rec_seed"
                raise ConfigError(f"{where}.{key}: {rec_seed(t_entry)} is not a trained seed (llara.baseline_seeds "
                                  f"{baseline_seeds}: seeds 0..{baseline_seeds - 1})")
            if t_name != name and (t_name in out or t_name in row_names or t_name in taken):
                raise ConfigError(f"{where}.seeds: its training {t_name!r} is already a row or model name; "
                                  f"choose another name")
        row_names.add(name)
        out.update(trainings)
    return out


def training_names(entry: dict) -> dict[str, dict]:
    """{training name: the entry with its seed and row}: ``name`` itself for one seed."""
    first, n = int(entry.get("seed", 0)), int(entry.get("seeds", 1))
    if n == 1:
        return {entry["name"]: {**entry, "seed": first, "row": entry["name"]}}
    return {f"{entry['name']}-s{s}": {**entry, "seed": s, "row": entry["name"]} for s in range(first, first + n)}


def rows(trainings: dict[str, dict]) -> dict[str, list[str]]:
    """{table row: its training names, in seed order}."""
    out: dict[str, list[str]] = {}
    for t_name, e in trainings.items():
        out.setdefault(e["row"], []).append(t_name)
    return out


def rec_seed(entry: dict) -> int:
    return int(entry.get("rec_seed", entry["seed"]))


def form(entry: dict) -> str:
    """The requests it is asked: hybrid (placeholders carry behavioural embeddings) or text ([PH])."""
    return "hybrid" if entry.get("rec") else "text"


def kind(entry: dict) -> str:
    """The table's kind of the row."""
    rec = entry.get("rec")
    return f"LLaRA({PAPER_REC[rec]})" if rec else "LoRA, text (TALLRec-style)"


def paper_row(entry: dict) -> str:
    """The paper's row in the same role (the paper's base model is Llama2-7B)."""
    rec = entry.get("rec")
    return f"LLaRA({PAPER_REC[rec]})" if rec else "TALLRec"


def train_dir(dataset: str, name: str) -> str:
    return f"results/llara/{dataset}/train/{name}"


def rec_checkpoint(dataset: str, entry: dict) -> str | None:
    rec = entry.get("rec")
    return f"results/llara/{dataset}/baseline_{rec}/seed{rec_seed(entry)}.pt" if rec else None


def requests_file(dataset: str, entry: dict) -> str:
    return f"results/llara/{dataset}/hybrid_requests/{form(entry)}.jsonl"


def answer_inputs(dataset: str, name: str, entry: dict) -> list[str]:
    """What the answer job reads besides its requests: a new adapter, projector or rec model re-runs it."""
    d = train_dir(dataset, name)
    rec = rec_checkpoint(dataset, entry)
    return [f"{d}/adapter", f"{d}/projector.pt", *([rec] if rec else [])]


def answer_cfg(dataset: str, name: str, entry: dict, base_params: dict) -> dict:
    """The answer job's backend config (its params): the base model's entry and the trained files."""
    d = train_dir(dataset, name)
    return {"backend": HYBRID_BACKEND, "base_name": entry["base"], "base": dict(base_params),
            "adapter": f"{d}/adapter", "projector": f"{d}/projector.pt", "rec_model": rec_checkpoint(dataset, entry),
            "form": form(entry), "max_new_tokens": int(entry["max_new_tokens"]), "batch_size": int(entry["batch_size"])}
