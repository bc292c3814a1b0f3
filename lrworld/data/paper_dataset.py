"""The LRWorld paper's dataset a configured dataset is compared with, the format registry's word
included (a Netflix layout is the paper's Netflix whatever its domain says)."""

from __future__ import annotations

from lrworld.data.formats import FORMATS
from lrworld.paper import figures as paper


def paper_dataset(dataset_cfg: dict) -> str | None:
    fmt = dataset_cfg.get("format")
    return paper.paper_dataset(dataset_cfg, FORMATS.get(fmt).paper_dataset if fmt in FORMATS else None)
