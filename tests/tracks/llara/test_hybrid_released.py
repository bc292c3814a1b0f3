"""A released LLaRA model: checkpoint and rec-model files in LLaRA's layouts (tests/support/llara_layouts.py)
load through the restricted unpickler, a pickle that would run code is refused, and the
`llara.checkpoint` row runs fetch -> load -> answer -> table end to end on a tiny Llama."""

import csv
import hashlib
import os
import pickle

import pytest
import torch
import yaml

from lrworld.core.io import read_json
from lrworld.tracks.llara.hybrid import pickles
from lrworld.tracks.llara.hybrid.released import load_llara_checkpoint
from lrworld.tracks.llara.hybrid.tokens import add_placeholder_tokens, item_table
from lrworld.tracks.llara.hybrid.train import with_lora
from tests.graph import job_counts, snakemake
from tests.support.fixtures_sequences import write_toy_sequences
from tests.support.llara_layouts import lora_state, projector_state, write_checkpoint, write_rec_model
from tests.support.tiny_llama import build_tiny_llama

HP = {"lora_r": 8, "lora_alpha": 32, "lora_dropout": 0.1}
# LLaRA's main.py arguments as save_hyperparameters() keeps them (a few)
HPARAMS = {"batch_size": 8, "lr": 7e-4, "rec_embed": "SASRec", "llm_tuning": "lora", "lora_r": 8, "save": "part"}


def _load(d):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    return AutoTokenizer.from_pretrained(d), AutoModelForCausalLM.from_pretrained(d)


def _peft_names(d):
    tok, base = _load(d)
    tok.add_special_tokens({"pad_token": "[PAD]"})
    add_placeholder_tokens(tok, base)
    return with_lora(base, HP)


def test_llara_rec_model_loads_as_its_item_table(tmp_path):
    model = write_rec_model(tmp_path / "lastfm.pt", item_num=4606)
    got = pickles.load_rec_model(tmp_path / "lastfm.pt")
    assert type(got).__name__ == "LlaraSASRec" and got.item_num == 4606
    assert torch.equal(item_table(got), model.item_embeddings.weight.detach())
    assert item_table(got).shape == (4607, 64)  # 4606 items + the padding row
    assert torch.equal(got.cacu_x(torch.tensor([3])), model.item_embeddings.weight[3:4].detach())


def test_llara_checkpoint_layout_loads(tmp_path):
    d = build_tiny_llama(tmp_path / "m")
    sd = {**projector_state(64, 16), **lora_state(_peft_names(d))}
    assert sum("lora_" in k for k in sd) == 2 * 7 * 2  # 2 layers x 7 modules x (A, B)
    write_checkpoint(tmp_path / "lastfm.ckpt", sd, HPARAMS)
    tok, base = _load(d)
    model, proj, ids = load_llara_checkpoint(tmp_path / "lastfm.ckpt", base, tok, HP)
    got = model.state_dict()
    assert all(torch.equal(got[k[len("llama_model."):]], v) for k, v in sd.items() if k.startswith("llama_model."))
    assert torch.equal(proj.mlp_proj[2].weight, sd["projector.mlp_proj.2.weight"])
    assert (proj.rec_size, proj.llm_size) == (64, 16)
    # LLaRA's vocabulary: [PAD], then [PH] [HistoryEmb] [CansEmb] [ItemEmb]
    n = len(tok)
    assert tok.pad_token == "[PAD]" and list(ids.values()) == list(range(n - 4, n))


class RunsCode:
    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("kind", ["rec_model", "ckpt"])
def test_a_pickle_that_would_run_code_is_refused(tmp_path, kind):
    bad = RunsCode()
    bad.marker = tmp_path / "ran"
    obj = bad if kind == "rec_model" else {"state_dict": {}, "hyper_parameters": bad}
    torch.save(obj, tmp_path / "bad.pt")
    read = pickles.load_rec_model if kind == "rec_model" else pickles.load
    with pytest.raises(pickles.Refused) as err:
        read(tmp_path / "bad.pt")
    msg = str(err.value)
    assert "\n" not in msg and str(tmp_path / "bad.pt") in msg and ("posix.system" in msg or "nt.system" in msg)
    assert not bad.marker.exists()
    # plain pickle would have run it
    pickle.loads(pickle.dumps(bad))
    assert bad.marker.exists()


def test_an_unknown_class_is_refused_in_one_line(tmp_path):
    torch.save(torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1), tmp_path / "t.pt")
    with pytest.raises(pickles.Refused, match=r"t\.pt: refuses to load torch\.nn\.modules\.transformer\.Transformer"):
        pickles.load_rec_model(tmp_path / "t.pt")


def test_a_state_dict_checkpoint_without_a_projector_is_one_clear_error(tmp_path):
    d = build_tiny_llama(tmp_path / "m")
    tok, base = _load(d)
    torch.save({"state_dict": {"x": torch.zeros(1)}}, tmp_path / "bad.ckpt")
    with pytest.raises(ValueError, match=r"bad\.ckpt: not a released LLaRA model: no projector\.mlp_proj\.0\.weight"):
        load_llara_checkpoint(tmp_path / "bad.ckpt", base, tok, HP)


def test_a_projector_only_checkpoint_is_refused_naming_the_lora_tensors(tmp_path):
    """The base model plus a projector is not the released model: refused before anything loads."""
    d = build_tiny_llama(tmp_path / "m")
    tok, base = _load(d)
    write_checkpoint(tmp_path / "proj.ckpt", projector_state(64, 16), HPARAMS)
    with pytest.raises(ValueError) as err:
        load_llara_checkpoint(tmp_path / "proj.ckpt", base, tok, HP)
    msg = str(err.value)
    assert "\n" not in msg and msg == (f"{tmp_path / 'proj.ckpt'}: not a released LLaRA model: no LoRA tensors "
                                       f"(llama_model.*.lora_A.*), LoRA tensors (llama_model.*.lora_B.*)")
    assert "[PAD]" not in tok.get_vocab()  # refused before the vocabulary grew


def test_a_checkpoint_missing_some_lora_tensors_is_refused(tmp_path):
    d = build_tiny_llama(tmp_path / "m")
    lora = lora_state(_peft_names(d))
    dropped = sorted(k for k in lora if ".layers.1." in k)
    sd = {**projector_state(64, 16), **{k: v for k, v in lora.items() if k not in dropped}}
    write_checkpoint(tmp_path / "half.ckpt", sd, HPARAMS)
    tok, base = _load(d)
    with pytest.raises(ValueError, match=rf"half\.ckpt: not a released LLaRA model: no {len(dropped)} of the base "
                                         rf"model's LoRA tensors, e\.g\. llama_model\..*layers\.1\."):
        load_llara_checkpoint(tmp_path / "half.ckpt", base, tok, HP)


def test_lora_settings_come_from_the_checkpoint_and_a_disagreeing_config_is_refused(tmp_path):
    d = build_tiny_llama(tmp_path / "m")
    sd = {**projector_state(64, 16), **lora_state(_peft_names(d))}
    # LLaRA's argparse keeps lora_r / lora_alpha as floats
    write_checkpoint(tmp_path / "a16.ckpt", sd, {**HPARAMS, "lora_r": 8.0, "lora_alpha": 16.0, "cans_num": 20})
    tok, base = _load(d)
    model, _, _ = load_llara_checkpoint(tmp_path / "a16.ckpt", base, tok, HP, None, 20)
    cfg = model.peft_config["default"]
    assert (cfg.r, cfg.lora_alpha, cfg.lora_dropout) == (8, 16.0, 0.1)  # alpha from the checkpoint, not HP's 32
    refused = (({"lora_alpha": 32}, 20, r"the checkpoint records lora_alpha 16, config: llara\.checkpoint\.lora\.lora_alpha "
                                        r"says 32"),
               (None, 10, r"trained with cans_num 20, config: llara\.n_candidates is 10"))
    for configured, n, pattern in refused:
        tok, base = _load(d)
        with pytest.raises(ValueError, match=r"a16\.ckpt: " + pattern):
            load_llara_checkpoint(tmp_path / "a16.ckpt", base, tok, HP, configured, n)
    # a checkpoint that records no LoRA settings: the tensors' rank still checks the configured one
    write_checkpoint(tmp_path / "bare.ckpt", sd, {"batch_size": 8})
    tok, base = _load(d)
    with pytest.raises(ValueError, match=r"bare\.ckpt: its lora_A tensors have rank \[8\], but lora_r is 4"):
        load_llara_checkpoint(tmp_path / "bare.ckpt", base, tok, HP, {"lora_r": 4})


def _sha(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.slow
def test_released_row_end_to_end(tmp_path, shared_data):
    """fetch (path + sha256) -> the restricted load -> the one answer rule -> the LLaRA table."""
    write_toy_sequences(tmp_path)
    d = build_tiny_llama(tmp_path / "tiny")
    rel = tmp_path / "released"
    rel.mkdir()
    write_rec_model(rel / "toy.pt", item_num=60)
    write_checkpoint(rel / "toy.ckpt", {**projector_state(64, 16), **lora_state(_peft_names(d))}, HPARAMS)
    cfg = {
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                            "source": {"path": str(shared_data / "movielens-100k/raw")}}},
        "models": {"tiny": {"backend": "hf", "model": str(d), "mode": "generate", "max_new_tokens": 3}},
        "llara": {"seed": 0, "baseline_seeds": 1, "baselines": ["popularity"], "models": [],
                  "checkpoint": {"name": "tiny-llara-released", "base": "tiny", "max_new_tokens": 3,
                                 "datasets": {"toy": {"ckpt": {"path": str(rel / "toy.ckpt"), "sha256": _sha(rel / "toy.ckpt")},
                                                      "rec_model": {"path": str(rel / "toy.pt"),
                                                                    "sha256": _sha(rel / "toy.pt")}}}},
                  "datasets": {"toy": {"interactions": str(tmp_path / "interactions.parquet"),
                                       "items": str(tmp_path / "items.parquet"), "template": "generic"}}},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    plan = job_counts(snakemake(tmp_path, "-n", "results/tables/llara.md").stdout)
    assert plan == {"llara_candidates": 1, "llara_hybrid_requests": 1, "llara_released_file": 1, "model_identity": 1,
                    "answer": 1, "llara_responses": 1, "llara_baseline": 1, "llara_score": 2, "llara_table": 1}
    snakemake(tmp_path, "results/tables/llara.md")
    with open(tmp_path / "results/tables/llara.csv") as f:
        table = {r["model"]: r for r in csv.DictReader(f)}
    assert table["tiny-llara-released"]["kind"] == "LLaRA(SASRec), released checkpoint"
    assert table["tiny-llara-released"]["toy n"] == "30"
    ident = read_json(tmp_path / "results/answers/llara/toy/tiny-llara-released.json")["identity"]
    assert ident["checkpoint_sha256"] == _sha(rel / "toy.ckpt") and ident["rec_model_sha256"] == _sha(rel / "toy.pt")
    assert ident["form"] == "hybrid" and "adapter_sha256" not in ident

    # a wrong digest stops the fetch in one line naming the key, and leaves no file
    cfg["llara"]["checkpoint"]["datasets"]["toy"]["rec_model"]["sha256"] = "0" * 64
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    (tmp_path / "results/llara/toy/released/rec_model.pt").unlink()
    bad = snakemake(tmp_path, "results/llara/toy/released/rec_model.pt", check=False)
    assert bad.returncode != 0
    log = (tmp_path / "logs/llara/toy/released.log").read_text()
    assert "config: llara.checkpoint.datasets.toy.rec_model.sha256:" in log
    assert not (tmp_path / "results/llara/toy/released/rec_model.pt").exists()
