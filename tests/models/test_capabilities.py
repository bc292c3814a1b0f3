"""What a backend can do is read from its registry entry (lrworld/models/registry.py, Capabilities),
never from its name; an unknown backend can do nothing (the schema names that problem)."""

from lrworld.models.registry import Capabilities, backends, capabilities


def test_each_backend_declares_what_it_can_do():
    hf, rnd, api = (capabilities({"backend": b}) for b in ("hf", "random", "openai"))
    assert hf.check_files and hf.weights and hf.tokenizer and hf.hub_model and hf.causal_lm
    assert hf.decoding == {"do_sample": False} and not hf.priced and not hf.managed_server
    assert not rnd.reads_prompt and rnd.weights is None and rnd.tokenizer is None
    assert api.priced and api.managed_server and api.tokenizer is None and api.reads_prompt
    assert capabilities({"backend": "nope"}) == Capabilities() and capabilities({}) == Capabilities()
    assert all(isinstance(entry.can, Capabilities) for _, entry in backends().items())


def test_the_hf_file_check_names_the_key(tmp_path):
    check = capabilities({"backend": "hf"}).check_files
    assert check("m", {"model": "./nowhere/at/all"}) == \
        "models.m.model: folder ./nowhere/at/all not found (a hub id is written org/name)"
    assert check("m", {"model": "org/name"}) is None
    (tmp_path / "a.gguf").write_text("x")
    assert check("m", {"model": str(tmp_path), "gguf_file": "b.gguf"}) == \
        f"models.m.gguf_file: 'b.gguf' not found in {tmp_path}; GGUF files there: a.gguf"
    assert check("m", {"model": str(tmp_path), "gguf_file": "a.gguf"}) is None
