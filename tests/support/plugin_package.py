"""A small installed lrworld plugin, written by a test: one backend, one dataset format, one
recommender, a knowledge measure and a ground-truth measure with its artifact and templates, each
declared through the entry points of a `*.dist-info` folder (what `pip install` writes), so that
`importlib.metadata` finds them on sys.path like any installed package's."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.cooc_module import cooc_module

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "lrworld_toyplug"

ENTRY_POINTS = f"""[lrworld.backends]
slotter = {PACKAGE}.backend

[lrworld.formats]
toy-tsv = {PACKAGE}.tsv_format

[lrworld.recommenders]
plugrec = {PACKAGE}.rec

[lrworld.measures]
toyplug = {PACKAGE}.measures:MEASURES

[lrworld.artifacts]
toyplug = {PACKAGE}.artifacts:ARTIFACTS
"""

FILES = {
    "__init__.py": '"""A toy lrworld plugin."""\n',
    "backend.py": '''"""Always the option in slot `slot`."""
from lrworld.models.base import Response
from lrworld.models.registry import register_backend


@register_backend("slotter", schema={"slot": {"type": "integer", "minimum": 0, "default": 1}})
class Slotter:
    def __init__(self, name, cfg):
        self.slot = cfg["slot"]

    def identity(self):
        return {"backend": "slotter", "slot": self.slot}

    def answer(self, items):
        return [Response(qid=it.qid, raw_text=it.labels[self.slot], choice_index=self.slot) for it in items]
''',
    "tsv_format.py": '''"""A toy format: ratings.tsv (user, item, rating, time) and items.tsv (id, title, year, genres)."""
from pathlib import Path

import pandas as pd

from lrworld.data.formats import encoding, register
from lrworld.data.tables import read_delimited


@register("toy-tsv", files=lambda cfg: ["ratings.tsv", "items.tsv"], options={"encoding": encoding("utf-8")})
def load(raw: Path, cfg: dict):
    """Toy ratings.tsv + items.tsv."""
    inter = read_delimited(raw / "ratings.tsv", sep="\\t", names=["user_id", "item_id", "rating", "timestamp"],
                           encoding=cfg["encoding"], dtypes={"user_id": "id", "item_id": "id", "rating": "float",
                                                             "timestamp": "int"})
    items = read_delimited(raw / "items.tsv", sep="\\t", names=["item_id", "title"], encoding=cfg["encoding"],
                           dtypes={"item_id": "id"})
    return inter, items, pd.DataFrame({"user_id": sorted(inter["user_id"].unique())}), {}
''',
    "rec.py": '''"""The most popular items first."""
RECOMMENDER = {"name": "plugrec", "make": "PlugRec", "schema": {"skip": {"type": "integer", "minimum": 0, "default": 0}}}


class PlugRec:
    def __init__(self, name, skip):
        self.skip = skip
''',
    "measures.py": '''"""A knowledge measure and a ground-truth measure, with their templates beside this module."""
from pathlib import Path

from lrworld.questions.measures import FIELD_VALUES, HIT10, MCQ, TABLE, Gold, Measure

TEMPLATES = Path(__file__).parent / "templates"
MEASURES = (
    Measure("plug_genre", ("movie",), "knowledgeability", "<movie, genre> (plugin)", MCQ, FIELD_VALUES,
            field="genres"),
    Measure("plug_cooc", ("movie",), "personalization", "co-occurrence (plugin)", HIT10,
            "lrworld_toyplug.cooc:build_questions", artifact="plug_pairs", gold=Gold(TABLE, "item", "item", "count")),
)
''',
    "artifacts.py": '''from lrworld.groundtruth.artifacts import Artifact

ARTIFACTS = {"plug_pairs": Artifact("results/gt/{dataset}/plug_pairs.parquet", make="lrworld_toyplug.cooc:plug_pairs")}
''',
    "cooc.py": cooc_module("plug_pairs", "plug_cooc"),
}


def write_plugin(site: Path) -> Path:
    """The plugin installed into `site` (a folder to put on PYTHONPATH, as `pip install --target` makes)."""
    pkg = site / PACKAGE
    pkg.mkdir(parents=True)
    for name, text in FILES.items():
        (pkg / name).write_text(text)
    templates = ROOT / "lrworld/templates/movie"
    shutil.copytree(templates / "attr_genre", pkg / "templates/movie/plug_genre")
    shutil.copytree(templates / "mem_item_item", pkg / "templates/movie/plug_cooc")
    dist = site / f"{PACKAGE}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PACKAGE.replace('_', '-')}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    return site
