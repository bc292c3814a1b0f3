"""Load a released LLaRA checkpoint: a Lightning file whose ``state_dict`` (LLaRA's ``save='part'``:
trainable tensors only) holds ``projector.mlp_proj.*`` and ``llama_model.<peft names>`` LoRA tensors,
read with the restricted unpickler (``pickles.py``); and fetch a released file to the plan's path."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from lrworld.tracks.llara.hybrid import pickles
from lrworld.tracks.llara.hybrid.projector import MlpProjector
from lrworld.tracks.llara.hybrid.tokens import add_placeholder_tokens
from lrworld.tracks.llara.hybrid.train import with_lora


PROJECTOR_KEYS = tuple(f"projector.mlp_proj.{i}.{w}" for i in (0, 2) for w in ("weight", "bias"))
LORA_KEYS = ("lora_r", "lora_alpha", "lora_dropout")


def required_missing(sd: dict) -> list[str]:
    """What a released LLaRA model must hold and ``sd`` lacks: the projector's four tensors and LoRA
    tensors (``llama_model.…lora_A/lora_B``, LLaRA's ``save='part'`` keeps only trainable tensors)."""
    missing = [k for k in PROJECTOR_KEYS if k not in sd]
    for part in ("lora_A", "lora_B"):
        if not any(k.startswith("llama_model.") and f".{part}." in k for k in sd):
            missing.append(f"LoRA tensors (llama_model.*.{part}.*)")
    return missing


def lora_settings(path, hparams: dict, sd: dict, default: dict, configured: dict | None) -> dict:
    """LoRA r / alpha / dropout the checkpoint was trained with: its ``hyper_parameters`` (LLaRA's
    ``save_hyperparameters``: main.py's arguments) where it records them, else the configured ones,
    else ``default``; the rank is also read off the ``lora_A`` tensors. Any disagreement is refused."""
    recorded = {k: float(hparams[k]) for k in LORA_KEYS if k in hparams}
    for k, v in (configured or {}).items():
        if k in recorded and float(v) != recorded[k]:
            raise ValueError(f"{path}: the checkpoint records {k} {recorded[k]:g}, config: llara.checkpoint.lora.{k} "
                             f"says {float(v):g}")
    out = {**default, **(configured or {}), **recorded}
    ranks = {int(v.shape[0]) for k, v in sd.items() if ".lora_A." in k}
    if ranks != {int(out["lora_r"])}:
        raise ValueError(f"{path}: its lora_A tensors have rank {sorted(ranks)}, but lora_r is {out['lora_r']:g}")
    return {**out, "lora_r": int(out["lora_r"])}


def load_llara_checkpoint(path: str | os.PathLike, base_model, tok, default_lora: dict,
                          configured_lora: dict | None = None, n_candidates: int | None = None):
    """(peft model, projector, placeholder token ids) from LLaRA's checkpoint at ``path``. A file
    without the projector or LoRA tensors, or trained otherwise than it would be scored (LoRA
    settings, ``llm_tuning``, ``cans_num``), is refused in one line naming what differs."""
    st = pickles.load(path)
    sd = st.get("state_dict", st) if isinstance(st, dict) else {}
    if missing := required_missing(sd):
        raise ValueError(f"{path}: not a released LLaRA model: no {', '.join(missing)}")
    hparams = dict(st.get("hyper_parameters") or {}) if isinstance(st, dict) else {}
    if hparams.get("llm_tuning", "lora") != "lora":
        raise ValueError(f"{path}: trained with llm_tuning {hparams['llm_tuning']!r}; a released row is a LoRA model")
    if n_candidates is not None and "cans_num" in hparams and int(hparams["cans_num"]) != int(n_candidates):
        raise ValueError(f"{path}: trained with cans_num {hparams['cans_num']}, "
                         f"config: llara.n_candidates is {n_candidates}")
    hp = lora_settings(path, hparams, sd, default_lora, configured_lora)
    proj = {k[len("projector."):]: v for k, v in sd.items() if k.startswith("projector.")}
    lora = {k[len("llama_model."):]: v for k, v in sd.items() if k.startswith("llama_model.")}
    # MInterface.load_llm: a [PAD] token before the four placeholders (the vocabulary it trained with)
    tok.add_special_tokens({"pad_token": "[PAD]"})
    token_ids = add_placeholder_tokens(tok, base_model)
    model = with_lora(base_model, hp)
    names = set(model.state_dict())
    unknown = sorted(set(lora) - names)
    if unknown:
        raise ValueError(f"{path}: {len(unknown)} LoRA tensors do not fit the base model, e.g. {unknown[0]}")
    absent = sorted(k for k in names if "lora_" in k and k not in lora)
    if absent:
        raise ValueError(f"{path}: not a released LLaRA model: no {len(absent)} of the base model's LoRA tensors, "
                         f"e.g. llama_model.{absent[0]}")
    model.load_state_dict(lora, strict=False)
    w = proj["mlp_proj.0.weight"]
    projector = MlpProjector(rec_size=w.shape[1], llm_size=w.shape[0])
    projector.load_state_dict({k: v.float() for k, v in proj.items()})
    model.eval()
    projector.eval()
    return model, projector, token_ids


def fetch_file(spec: dict, out: str | os.PathLike, where: str, log) -> str:
    """Copy (``path``) or download (``url``) a released file to ``out``, checked against its
    ``sha256`` (required with url; with path, when given); returns the digest. A mismatch leaves no
    file and names the key. The answer job's identity holds the digest either way."""
    from lrworld.core.io import sha256_file
    from lrworld.data.download import download

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    want = str(spec.get("sha256", "")).lower()
    if "url" in spec:
        download(spec["url"], out, {"sha256": want}, log)
        return want
    src = Path(spec["path"])
    if not src.is_file():
        raise ValueError(f"{where}.path: {src} is not a file")
    got = sha256_file(src)
    if want and got != want:
        raise ValueError(f"{where}.sha256: {src} has sha256 {got}, the config says {want}")
    tmp = out.with_name(out.name + ".part")
    shutil.copyfile(src, tmp)
    os.replace(tmp, out)
    log.info("%s: %s (sha256 %s)", out, src, got)
    return got
