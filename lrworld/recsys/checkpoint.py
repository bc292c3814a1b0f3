"""The traditional model whose item embeddings a hybrid prompt carries: saved by `llara_baseline`
(the same training that produces the baseline rows) and read back by `llara_train`."""

from __future__ import annotations

import os

from lrworld.core.tensors import load_tensors, save_tensors


def save_rec_model(path: str | os.PathLike, model, name: str, n_items: int, hparams: dict) -> None:
    save_tensors({"name": name, "n_items": int(n_items), "hparams": dict(hparams),
                  "state_dict": model.state_dict() if hasattr(model, "state_dict") else {}}, path)


def load_rec_model(path: str | os.PathLike):
    from lrworld.recsys.sequential import make_model

    st = load_tensors(path, "recommender checkpoint")
    if not st["state_dict"]:  # a model with no weights (popularity) has no item embeddings to read
        raise ValueError(f"{path}: {st['name']} has no item embeddings; use gru4rec, caser or sasrec")
    model = make_model(st["name"], st["n_items"], **st["hparams"])
    model.load_state_dict(st["state_dict"])
    model.eval()
    return model
