"""Files in LLaRA's released layouts, written offline for the released-model tests:

- ``rec_model/<dataset>.pt``: a whole SASRec object, ``torch.save(model)`` from LLaRA's
  ``recommender/A_SASRec_final_bce_llm.py`` run as a script, so pickled as ``__main__.SASRec`` with
  ``SASRecModules_ori.MultiHeadAttention`` / ``PositionwiseFeedForward`` inside (their layers and
  attribute names as in LLaRA's code: ``item_embeddings``, ``positional_embeddings``, ``ln_1..3``,
  ``mh_attn``, ``feed_forward``, ``s_fc``, ``device``);
- ``<dataset>.ckpt``: a Lightning 1.8 checkpoint of ``MInterface`` with ``save='part'`` (no optimizer
  states; ``state_dict`` holds the trainable tensors ``projector.mlp_proj.*`` and
  ``llama_model.base_model.model.…lora_A/B.default.weight``; ``hyper_parameters`` an ``AttributeDict``).
"""

from __future__ import annotations

import contextlib
import sys
import types

import torch
from torch import nn


class PositionwiseFeedForward(nn.Module):  # SASRecModules_ori.py
    def __init__(self, d_in, d_hid, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Conv1d(d_in, d_hid, 1)
        self.w_2 = nn.Conv1d(d_hid, d_in, 1)
        self.layer_norm = nn.LayerNorm(d_in)
        self.dropout = nn.Dropout(dropout)


class MultiHeadAttention(nn.Module):  # SASRecModules_ori.py
    def __init__(self, hidden_size, num_units, num_heads, dropout_rate):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.linear_q = nn.Linear(hidden_size, num_units)
        self.linear_k = nn.Linear(hidden_size, num_units)
        self.linear_v = nn.Linear(hidden_size, num_units)
        self.dropout = nn.Dropout(dropout_rate)
        self.softmax = nn.Softmax(dim=-1)


class SASRec(nn.Module):  # recommender/A_SASRec_final_bce_llm.py
    def __init__(self, hidden_size, item_num, state_size, dropout, device, num_heads=1):
        super().__init__()
        self.state_size = state_size
        self.hidden_size = hidden_size
        self.item_num = int(item_num)
        self.dropout = nn.Dropout(dropout)
        self.device = device
        self.item_embeddings = nn.Embedding(num_embeddings=item_num + 1, embedding_dim=hidden_size)
        nn.init.normal_(self.item_embeddings.weight, 0, 1)
        self.positional_embeddings = nn.Embedding(num_embeddings=state_size, embedding_dim=hidden_size)
        self.emb_dropout = nn.Dropout(dropout)
        self.ln_1 = nn.LayerNorm(hidden_size)
        self.ln_2 = nn.LayerNorm(hidden_size)
        self.ln_3 = nn.LayerNorm(hidden_size)
        self.mh_attn = MultiHeadAttention(hidden_size, hidden_size, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(hidden_size, hidden_size, dropout)
        self.s_fc = nn.Linear(hidden_size, item_num)


class AttributeDict(dict):  # pytorch_lightning.utilities.parsing
    pass


@contextlib.contextmanager
def as_llara_names():
    """Pickle the classes above under the names LLaRA's files carry."""
    saved = {}
    mods = {"SASRecModules_ori": (MultiHeadAttention, PositionwiseFeedForward),
            "pytorch_lightning": (), "pytorch_lightning.utilities": (),
            "pytorch_lightning.utilities.parsing": (AttributeDict,)}
    try:
        for name, classes in mods.items():
            saved[name] = sys.modules.get(name)
            mod = types.ModuleType(name)
            for c in classes:
                setattr(mod, c.__name__, c)
                c.__module__, c.__qualname__ = name, c.__name__
            sys.modules[name] = mod
        main = sys.modules["__main__"]
        saved_main = getattr(main, "SASRec", None)
        SASRec.__module__, SASRec.__qualname__ = "__main__", "SASRec"
        main.SASRec = SASRec
        yield
    finally:
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
        if saved_main is None:
            delattr(sys.modules["__main__"], "SASRec")
        else:
            main.SASRec = saved_main


def write_rec_model(path, item_num: int, hidden: int = 64, seed: int = 0) -> SASRec:
    torch.manual_seed(seed)
    model = SASRec(hidden, item_num, 10, 0.1, torch.device("cpu"))
    with as_llara_names():
        torch.save(model, path)
    return model


def write_checkpoint(path, state_dict: dict, hparams: dict) -> None:
    """Lightning 1.8's checkpoint dict as MInterface.on_save_checkpoint leaves it with save='part'."""
    with as_llara_names():
        torch.save({"epoch": 4, "global_step": 1870, "pytorch-lightning_version": "1.8.6",
                    "state_dict": state_dict,
                    "loops": {"fit_loop": {"state_dict": {}, "epoch_progress": {"total": {"ready": 5}}}},
                    "callbacks": {"ModelCheckpoint{'monitor': 'metric', 'mode': 'max'}": {
                        "monitor": "metric", "best_model_score": torch.tensor(0.5246),
                        "best_model_path": "./checkpoints/lastfm/epoch=04-metric=0.525.ckpt"}},
                    "lr_schedulers": [], "hparams_name": "kargs",
                    "hyper_parameters": AttributeDict(hparams)}, path)


def lora_state(model, seed: int = 1) -> dict:
    """``llama_model.<name>`` tensors for every LoRA weight of a peft model (random values)."""
    torch.manual_seed(seed)
    return {"llama_model." + k: torch.randn_like(v) * 0.01 for k, v in model.state_dict().items() if "lora_" in k}


def projector_state(rec_size: int, llm_size: int, seed: int = 2) -> dict:
    torch.manual_seed(seed)
    return {"projector.mlp_proj.0.weight": torch.randn(llm_size, rec_size), "projector.mlp_proj.0.bias": torch.randn(llm_size),
            "projector.mlp_proj.2.weight": torch.randn(llm_size, llm_size), "projector.mlp_proj.2.bias": torch.randn(llm_size)}
