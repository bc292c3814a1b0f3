"""docs/extending.md's recipes keep the suite green: a copy of the checkout gets one extension of
each documented kind (a backend, a measure, two permuting variants, a ground-truth measure, a
recommender, a dataset format), then the one documented regeneration (`python -m
lrworld.docsgen.blocks`), and the fast tests that read the registries, the docs' generated blocks,
the floors, the config schema and the name-branch scan run over that tree. A recipe that would turn
`make test` red fails here. Bounded: those test files, not the whole suite (the graph runs of each
extension are tests/workflow/test_extending.py's, marked slow)."""

import os
import subprocess
import sys

from tests.graph import copy_checkout
from tests.workflow.test_extending import (TOY_ARTIFACT, TOY_BACKEND, TOY_GT_MEASURE, TOY_MEASURE, TOY_MODULE,
                                           TOY_RECOMMENDER, TOY_VARIANTS)

# the fast tests whose subject is a registry, a generated docs block, the floors or the schema
SUITE = ["tests/test_floors_doc.py", "tests/docsgen/test_blocks.py", "tests/test_name_branches.py",
         "tests/recsys/test_registry.py", "tests/questions/test_builders.py", "tests/data/test_registries.py",
         "tests/test_config.py", "tests/prompts/test_variants.py", "tests/test_layering.py"]

# docs/extending.md, "A new dataset format", as written there
TOY_FORMAT = '''"""My dataset: ratings.tsv (user, item, rating, unix time) and items.tsv (id, title)."""
from pathlib import Path

import pandas as pd

from lrworld.data.contract import check_unique
from lrworld.data.formats import ON_BAD_LINE, encoding, register
from lrworld.data.tables import read_delimited


@register("my-format", files=lambda cfg: ["ratings.tsv", "items.tsv"],
          optional=lambda cfg: ["users.tsv"],
          options={"encoding": encoding("utf-8")})
def load(raw: Path, cfg: dict):
    """My dataset (ratings.tsv + items.tsv)."""
    inter = read_delimited(raw / "ratings.tsv", sep="\\t", names=["user_id", "item_id", "rating", "timestamp"],
                           encoding=cfg["encoding"], dtypes={"user_id": "id", "item_id": "id",
                                                             "rating": "float", "timestamp": "int"})
    items = read_delimited(raw / "items.tsv", sep="\\t", names=["item_id", "title"], encoding=cfg["encoding"],
                           dtypes={"item_id": "id"})
    check_unique(items, "item_id", raw / "items.tsv")
    users = pd.DataFrame({"user_id": sorted(inter["user_id"].unique())})
    return inter, items, users, {}
'''


def extend(repo):
    def append(path, text, anchor):
        f = repo / path
        assert anchor in f.read_text(), (path, anchor)
        f.write_text(f.read_text().replace(anchor, text + anchor, 1))

    (repo / "lrworld/models/backends/toy.py").write_text(TOY_BACKEND)
    append("lrworld/questions/measures.py", TOY_MEASURE + TOY_GT_MEASURE, anchor='    Measure("next_artist"')
    for measure, like in (("toy_genre", "attr_genre"), ("toy_cooc", "mem_item_item")):
        for domain in ("movie", "product") if measure == "toy_cooc" else ("movie",):
            src = repo / f"lrworld/templates/{domain}/{like}"
            (repo / f"lrworld/templates/{domain}/{measure}").mkdir()
            for t in src.iterdir():
                (repo / f"lrworld/templates/{domain}/{measure}/{t.name}").write_text(t.read_text())
    variants = repo / "lrworld/prompts/variants.py"
    variants.write_text(variants.read_text() + TOY_VARIANTS)
    append("lrworld/groundtruth/artifacts.py", TOY_ARTIFACT, anchor="}\n\n\nREGISTRY")
    (repo / "lrworld/groundtruth/toy.py").write_text(TOY_MODULE)
    (repo / "lrworld/recsys/toyrec.py").write_text(TOY_RECOMMENDER)
    (repo / "lrworld/data/formats/my_format.py").write_text(TOY_FORMAT)


def test_every_documented_extension_leaves_the_registry_tests_green(tmp_path, shared_data):
    repo = copy_checkout(tmp_path / "repo", ["Snakefile", "rules", "scripts", "lrworld", "envs", "docs", "tests",
                                            "config", "config.yaml", "pyproject.toml", "README.md", "CHANGELOG.md"])
    extend(repo)
    env = {**os.environ, "PYTHONPATH": str(repo), "LRWORLD_SHARED_DATA": str(shared_data)}
    # new modules move the import graph's counts: the docs block is stale until the one command runs
    stale = subprocess.run([sys.executable, "-c", "from lrworld.docsgen.blocks import stale; print(stale())"],
                           cwd=repo, env=env, capture_output=True, text=True)
    assert "docs/extending.md: import_graph" in stale.stdout, stale.stderr[-2000:]
    regen = subprocess.run([sys.executable, "-m", "lrworld.docsgen.blocks"], cwd=repo, env=env,
                           capture_output=True, text=True)
    assert regen.returncode == 0 and "docs/extending.md: import_graph" in regen.stdout, regen.stderr[-2000:]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                           "-x", *SUITE], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    # the extensions were there: the copy's registries hold each of them
    check = subprocess.run([sys.executable, "-c", "from lrworld.models.registry import backends; "
                            "from lrworld.questions import measures; from lrworld.recsys.registry import recommenders; "
                            "from lrworld.data.formats import FORMATS; from lrworld.prompts.variants import kind; "
                            "print('toy' in backends(), 'toy_cooc' in measures.REGISTRY, 'toyrec' in recommenders(), "
                            "'my-format' in FORMATS, kind('backwards'))"],
                           cwd=repo, env=env, capture_output=True, text=True)
    assert check.stdout.split() == ["True", "True", "True", "True", "backwards"], check.stderr[-2000:]
