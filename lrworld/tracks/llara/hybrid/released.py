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


def load_llara_checkpoint(path: str | os.PathLike, base_model, tok, hp: dict):
    """(peft model, projector, placeholder token ids) from LLaRA's checkpoint at ``path``."""
    st = pickles.load(path)
    sd = st.get("state_dict", st) if isinstance(st, dict) else {}
    proj = {k[len("projector."):]: v for k, v in sd.items() if k.startswith("projector.")}
    lora = {k[len("llama_model."):]: v for k, v in sd.items() if k.startswith("llama_model.")}
    if "mlp_proj.0.weight" not in proj:
        raise ValueError(f"{path}: no projector.mlp_proj.* tensors (not a LLaRA checkpoint)")
    # MInterface.load_llm: a [PAD] token before the four placeholders (the vocabulary it trained with)
    tok.add_special_tokens({"pad_token": "[PAD]"})
    token_ids = add_placeholder_tokens(tok, base_model)
    model = with_lora(base_model, hp)
    names = set(model.state_dict())
    unknown = sorted(set(lora) - names)
    if unknown:
        raise ValueError(f"{path}: {len(unknown)} LoRA tensors do not fit the base model, e.g. {unknown[0]}")
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
