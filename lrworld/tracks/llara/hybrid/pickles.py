"""Read LLaRA's released pickles without running their code.

LLaRA's ``rec_model/*.pt`` are whole traditional-model objects saved with ``torch.save(model)`` from
its ``recommender/A_SASRec_final_bce_llm.py`` run as a script, so the pickle names the classes
``__main__.SASRec`` (or ``GRU``, ``Caser``) and ``SASRecModules_ori.MultiHeadAttention`` /
``PositionwiseFeedForward``; its Lightning checkpoints (``*.ckpt``) hold an ``AttributeDict`` of
hyper-parameters beside the tensors. Plain ``torch.load`` would import and run whatever a pickle
names. :func:`load` instead resolves only an allow-list: LLaRA's classes map to the stand-ins
below (the attributes LLaRA's ``MInterface.encode_items`` reads: ``item_embeddings``, ``cacu_x``),
torch's tensor rebuilders, storages and the ``torch.nn`` layers those models hold; any other name
is refused in one line naming the file and the name.
"""

from __future__ import annotations

import _compat_pickle
import os
import pickle
from types import SimpleNamespace

import torch
from torch import nn


class LlaraRecModel(nn.Module):
    """LLaRA's SASRec / GRU / Caser as unpickled: their layers and attributes, no training code.
    LLaRA reads only the item table (``cacu_x`` for SASRec, ``item_embeddings`` for GRU and Caser:
    both the embedding lookup)."""

    def cacu_x(self, x):
        return self.item_embeddings(x)


class LlaraSASRec(LlaraRecModel):
    pass


class LlaraGRU(LlaraRecModel):
    pass


class LlaraCaser(LlaraRecModel):
    pass


class LlaraSubmodule(nn.Module):
    """SASRecModules_ori's MultiHeadAttention / PositionwiseFeedForward: held, never called."""


class LlaraMultiHeadAttention(LlaraSubmodule):
    pass


class LlaraPositionwiseFeedForward(LlaraSubmodule):
    pass


class AttributeDict(dict):
    """Lightning's ``AttributeDict`` (the checkpoint's ``hyper_parameters``) as a plain dict."""


REC_CLASSES = {"SASRec": LlaraSASRec, "GRU": LlaraGRU, "Caser": LlaraCaser}
# the module a class is pickled under: the script LLaRA ran (``__main__``) or its file as a module
_REC_MODULES = ("__main__", "A_SASRec_final_bce_llm", "recommender.A_SASRec_final_bce_llm")
_NN = {"sparse": ("Embedding",), "linear": ("Linear",), "dropout": ("Dropout",),
       "normalization": ("LayerNorm",), "conv": ("Conv1d", "Conv2d"), "activation": ("Softmax", "ReLU", "GELU"),
       "rnn": ("GRU",), "container": ("ModuleList", "Sequential")}

ALLOWED: dict[tuple[str, str], object] = {
    **{(m, n): c for m in _REC_MODULES for n, c in REC_CLASSES.items()},
    ("SASRecModules_ori", "MultiHeadAttention"): LlaraMultiHeadAttention,
    ("SASRecModules_ori", "PositionwiseFeedForward"): LlaraPositionwiseFeedForward,
    **{(f"torch.nn.modules.{m}", n): getattr(nn, n) for m, names in _NN.items() for n in names},
    ("collections", "OrderedDict"): __import__("collections").OrderedDict,
    ("builtins", "set"): set,
    ("torch._utils", "_rebuild_tensor_v2"): torch._utils._rebuild_tensor_v2,
    ("torch._utils", "_rebuild_parameter"): torch._utils._rebuild_parameter,
    ("torch", "device"): torch.device,
    ("torch", "Size"): torch.Size,
    **{("torch", f"{t}Storage"): getattr(torch, f"{t}Storage")
       for t in ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")},
    # numbers saved as numpy scalars (LLaRA's item_num) and protocol-2 bytes
    ("numpy.core.multiarray", "scalar"): None, ("numpy._core.multiarray", "scalar"): None,
    ("numpy", "dtype"): None,
    ("_codecs", "encode"): __import__("_codecs").encode,
    # the Lightning checkpoint's hyper-parameters
    ("pytorch_lightning.utilities.parsing", "AttributeDict"): AttributeDict,
    ("lightning_fabric.utilities.data", "AttributeDict"): AttributeDict,
    ("lightning.fabric.utilities.data", "AttributeDict"): AttributeDict,
}


class Refused(ValueError):
    pass


def _numpy(name: str):
    import numpy as np

    if name == "dtype":
        return np.dtype
    try:
        from numpy._core.multiarray import scalar
    except ImportError:  # numpy < 2
        from numpy.core.multiarray import scalar
    return scalar


def _unpickler_for(path):
    class RestrictedUnpickler(pickle.Unpickler):
        def find_class(self, module, name):
            # protocol-2 names (``__builtin__.set``), as pickle's own find_class maps them
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            module = _compat_pickle.IMPORT_MAPPING.get(module, module)
            key = (module, name)
            if key not in ALLOWED:
                raise Refused(f"{path}: refuses to load {module}.{name} (not a class LLaRA's released "
                              f"files are made of; nothing in the file was run)")
            found = ALLOWED[key]
            return _numpy(name) if found is None else found

    return RestrictedUnpickler


def load(path: str | os.PathLike):
    """The object pickled in ``path`` (a torch.save zip or legacy file), built from allowed names only."""
    module = SimpleNamespace(__name__="lrworld_restricted_pickle", Unpickler=_unpickler_for(path),
                             load=lambda f, **kw: _unpickler_for(path)(f, **kw).load())
    try:
        return torch.load(path, map_location="cpu", weights_only=False, pickle_module=module)
    except Refused:
        raise
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise Refused(f"{path}: not a readable torch file ({first})") from None


def load_rec_model(path: str | os.PathLike) -> LlaraRecModel:
    """A released ``rec_model/*.pt``: LLaRA's SASRec, GRU or Caser (its item table in ``item_embeddings``)."""
    obj = load(path)
    if not isinstance(obj, LlaraRecModel) or not isinstance(getattr(obj, "item_embeddings", None), nn.Embedding):
        raise Refused(f"{path}: not one of LLaRA's rec models (SASRec, GRU, Caser with item_embeddings); "
                      f"found {type(obj).__name__}")
    obj.eval()
    return obj
