"""A GGUF model dequantized once: transformers reads a GGUF file by dequantizing every tensor in
Python (about 20 s for SmolLM2-135M on a CPU core, in every answer job that loads it), while the
same weights saved as safetensors load in a fraction of a second. The first load writes the
converted model and tokenizer to a folder named by the GGUF file's sha256 and the transformers
version that converted it; later loads read that folder. The logits are bit-identical (tests).

The folder is a cache, not an artifact: the model's identity stays the GGUF file's digest, and a
changed GGUF file has another digest, so another folder. `LRWORLD_GGUF_CACHE` names where the
folders live (default `$XDG_CACHE_HOME/lrworld/gguf`, else `~/.cache/lrworld/gguf`; on a cluster
point it at a shared file system so every node converts a file once); `off` loads from the GGUF
file every time. A folder appears whole or not at all (written beside, then renamed), so jobs on
several nodes may convert the same file at once. A job killed while converting leaves its folder
beside, named by its host and process: the next conversion removes it once that process is gone (or,
from another host, once it has not changed for a day), so a killed first load costs no disk for good.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

from lrworld.core.processes import alive

log = logging.getLogger(__name__)
ENV = "LRWORLD_GGUF_CACHE"
DONE = "lrworld-gguf.json"  # written last: a folder without it is not used
STALE_S = 24 * 3600  # another host's half folder untouched this long is abandoned


def cache_root() -> Path | None:
    """Where converted folders live (None: the cache is off)."""
    where = os.environ.get(ENV)
    if where == "off":
        return None
    if where:
        return Path(where)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lrworld" / "gguf"


def folder_for(weights_sha256: str) -> Path | None:
    import transformers

    root = cache_root()
    return None if root is None else root / f"{weights_sha256}-transformers-{transformers.__version__}"


def converted(weights_sha256: str) -> Path | None:
    """The converted folder of a GGUF file, if one is complete."""
    folder = folder_for(weights_sha256)
    if folder is None or not (folder / DONE).is_file():
        return None
    return folder


def sweep_abandoned(folder: Path) -> list[Path]:
    """Remove the half folders that killed conversions into `folder` left beside it; the removed."""
    removed = []
    for tmp in folder.parent.glob(f".{folder.name}.*"):
        host, pid, _ = (tmp.name[len(folder.name) + 2:].rsplit(".", 2) + ["", ""])[:3]
        try:
            if host == socket.gethostname() and pid.isdigit():
                gone = not alive(int(pid))
            else:
                gone = time.time() - tmp.stat().st_mtime > STALE_S
        except OSError:  # removed by another job meanwhile
            continue
        if gone:
            shutil.rmtree(tmp, ignore_errors=True)
            removed.append(tmp)
    return removed


def _usual_modes(folder: Path) -> None:
    """The modes the umask gives a new folder and file (mkdtemp makes 0700, and some writers 0600),
    so a cache shared by a group on a cluster is readable by it as the umask allows."""
    mask = os.umask(0)
    os.umask(mask)
    folder.chmod(0o777 & ~mask)
    for f in folder.iterdir():
        f.chmod(0o666 & ~mask)


def convert(location: str, gguf_file: str, weights_sha256: str) -> Path | None:
    """Dequantize `gguf_file` of `location` into its cache folder; the folder (None when the cache
    is off or cannot be written: the caller then loads from the GGUF file as before)."""
    folder = folder_for(weights_sha256)
    if folder is None:
        return None
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        for gone in sweep_abandoned(folder):
            log.info("GGUF cache: removed %s, left by a killed conversion", gone)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.{socket.gethostname()}.{os.getpid()}.", dir=folder.parent))
    except OSError as exc:
        log.warning("GGUF cache %s not writable (%s): loading %s from the GGUF file", folder.parent, exc, gguf_file)
        return None
    try:
        tok = AutoTokenizer.from_pretrained(location, gguf_file=gguf_file)
        model = AutoModelForCausalLM.from_pretrained(location, gguf_file=gguf_file)
        # dequantized weights are plain tensors; transformers refuses to save a model that still
        # names its GGUF quantizer
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        (tmp / DONE).write_text(json.dumps({"gguf_file": gguf_file, "weights_sha256": weights_sha256}))
        _usual_modes(tmp)
        try:
            tmp.rename(folder)
        except OSError:  # another job renamed its copy first: theirs is the same conversion
            if not (folder / DONE).is_file():
                raise
    except OSError as exc:
        log.warning("GGUF cache %s: %s; loading %s from the GGUF file", folder, exc, gguf_file)
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log.info("GGUF %s dequantized once into %s", gguf_file, folder)
    return folder


def ensure(location: str, gguf_file: str, weights_sha256: str) -> Path | None:
    """The converted folder of a GGUF file, converted now if no complete one exists (None: load from
    the GGUF file)."""
    return converted(weights_sha256) or convert(location, gguf_file, weights_sha256)
