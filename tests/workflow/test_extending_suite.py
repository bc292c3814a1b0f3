"""docs/extending.md's recipes keep the suite green: a copy of the checkout (a git checkout of the
working tree as it stands) gets one extension of each documented kind (a backend, a measure, two
permuting variants, a ground-truth measure, a recommender, a dataset format), then the page's one
regeneration, `make docs`, and then `make test-fast`, the whole fast suite, over that tree. A recipe
that would turn `make test` red fails here. Marked slow: the fast suite is minutes (its own run
over the copy is this test's cost); the graph runs of each extension are
tests/workflow/test_extending.py's."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.graph import ROOT
from tests.workflow.test_extending import (TOY_ARTIFACT, TOY_BACKEND, TOY_GT_MEASURE, TOY_MEASURE, TOY_MODULE,
                                           TOY_RECOMMENDER, TOY_VARIANTS)

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


def copy_worktree(dest: Path) -> Path:
    """The checkout's working tree (tracked files as they stand and new ones git does not ignore),
    committed into a fresh repository: tests that read git see a checkout."""
    names = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for name in names:
        if name and (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    who = ["-c", "user.name=lrworld tests", "-c", "user.email=tests@lrworld.invalid"]
    for args in (["init", "-q"], ["add", "-A"], [*who, "commit", "-qm", "the checkout, before the recipes"]):
        subprocess.run(["git", "-C", str(dest), *args], check=True, capture_output=True)
    return dest


@pytest.mark.recipes
def test_every_documented_extension_leaves_the_fast_suite_green(tmp_path, shared_data):
    repo = copy_worktree(tmp_path / "repo")
    extend(repo)
    # the copy's own package in every process the suite starts; this interpreter's environment
    env = {**os.environ, "PYTHONPATH": str(repo), "LRWORLD_SHARED_DATA": str(shared_data)}
    make = ["make", f"BIN={Path(sys.executable).parent}"]
    # new modules move the import graph's counts: the docs block is stale until `make docs` runs
    stale = subprocess.run([sys.executable, "-c", "from lrworld.docsgen.blocks import stale; print(stale())"],
                           cwd=repo, env=env, capture_output=True, text=True)
    assert "docs/extending.md: import_graph" in stale.stdout, stale.stderr[-2000:]
    docs = subprocess.run([*make, "docs"], cwd=repo, env=env, capture_output=True, text=True)
    assert docs.returncode == 0 and "docs/extending.md: import_graph" in docs.stdout, docs.stderr[-2000:]
    # the extensions are there: the copy's registries hold each of them, its reference pages list them
    check = subprocess.run([sys.executable, "-c", "from lrworld.models.registry import backends; "
                            "from lrworld.questions import measures; from lrworld.recsys.registry import recommenders; "
                            "from lrworld.data.formats import FORMATS; from lrworld.prompts.variants import kind; "
                            "print('toy' in backends(), 'toy_cooc' in measures.REGISTRY, 'toyrec' in recommenders(), "
                            "'my-format' in FORMATS, kind('backwards'))"],
                           cwd=repo, env=env, capture_output=True, text=True)
    assert check.stdout.split() == ["True", "True", "True", "True", "backwards"], check.stderr[-2000:]
    assert "toy_cooc" in (repo / "docs/reference/measures.md").read_text()
    proc = subprocess.run([*make, "test-fast"], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
