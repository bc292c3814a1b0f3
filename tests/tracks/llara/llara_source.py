"""LLaRA's own code (ljy0ustc/LLaRA 9733f73, copied under fixtures/llara_9733f73/) loaded for the tests
that compare lrworld with it: only the classes and functions named, compiled from the copy's syntax
tree, so that nothing else in those files (Lightning, imports of LLaRA's packages) runs."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.utils.data as data

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "llara_9733f73"


def lines(relpath: str) -> list[str]:
    """A copied file's lines as LLaRA's ``load_prompt`` reads a prompt file (splitlines, stripped)."""
    return [p.strip() for p in (FIXTURE / relpath).read_text(encoding="utf-8").splitlines()]


def _compile(relpath: str, wanted: set[str]) -> dict:
    tree = ast.parse((FIXTURE / relpath).read_text(encoding="utf-8"))
    nodes = [n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name in wanted]
    assert {n.name for n in nodes} == wanted, f"{relpath}: {wanted} not all found"
    ns = {"random": random, "torch": torch, "np": np, "pd": pd, "data": data, "op": __import__("os.path").path}
    exec(compile(ast.Module(body=nodes, type_ignores=[]), str(FIXTURE / relpath), "exec"), ns)
    return ns


def movielens_data():
    """LLaRA's ``MovielensData`` class (data/movielens_data.py)."""
    return _compile("data/movielens_data.py.txt", {"MovielensData"})["MovielensData"]


def train_collater():
    """LLaRA's ``TrainCollater`` (data/data_interface.py), which writes every prompt's text."""
    return _compile("data/data_interface.py.txt", {"TrainCollater"})["TrainCollater"]
