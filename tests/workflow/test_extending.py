"""docs/extending.md's recipes, followed literally in a scratch copy of the checkout: a toy measure is
one registry entry plus its template, a toy backend is one new file; the real graph then validates,
plans and runs them to a results table, and nothing else in the checkout was touched."""

import filecmp
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.graph import snakemake

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
COPY = ["Snakefile", "rules", "scripts", "lrworld", "envs", "docs", "config.yaml"]

TOY_MEASURE = '''    Measure("toy_genre", ("movie",), _KNOW, "<movie, genre> (toy)", MCQ, FIELD_VALUES, field="genres",
            answer_policy="first"),
'''

TOY_BACKEND = '''"""A toy backend: always the option in slot `slot`."""
from lrworld.models.base import Response
from lrworld.models.registry import register_backend


@register_backend("toy", schema={"slot": {"type": "integer", "minimum": 0, "default": 1}})
class ToyBackend:
    def __init__(self, name, cfg):
        self.slot = cfg["slot"]

    def identity(self):
        return {"backend": "toy", "slot": self.slot}

    def answer(self, items):
        return [Response(qid=it.qid, raw_text=it.labels[self.slot], choice_index=self.slot) for it in items]
'''


# two variants that move the answer, named as nothing in the code expects: the audit reads that
# they permute from their registry entry (`permutes=True`), not from their names. (`reverse` is
# refused at import: Snakemake reserves it, tests/audit/test_audit.py.)
TOY_VARIANTS = '''

@register_variant("flip", permutes=True)
def _flip(q: dict, ctx: Context):
    n = len(q["candidates"])
    return (*permuted(q, [1, 0] + list(range(2, n))), "")


@register_variant("backwards", permutes=True)
def _backwards(q: dict, ctx: Context):
    return (*permuted(q, list(range(len(q["candidates"])))[::-1]), "")
'''


def changed_files(a: Path, b: Path) -> set[str]:
    out = set()
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])

    def walk(c, rel):
        out.update(f"{rel}{n}" for n in c.diff_files + c.left_only + c.right_only)
        for name, sub in c.subdirs.items():
            walk(sub, f"{rel}{name}/")

    walk(cmp, "")
    return out


def test_a_toy_measure_and_a_toy_backend_run_through_the_graph(tmp_path, shared_data):
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in COPY:
        src = ROOT / name
        (shutil.copytree(src, repo / name, ignore=shutil.ignore_patterns("__pycache__")) if src.is_dir()
         else shutil.copy2(src, repo / name))
    # the measure: one registry entry, and its template
    reg = repo / "lrworld/questions/measures.py"
    text = reg.read_text()
    anchor = '    Measure("next_artist"'
    reg.write_text(text.replace(anchor, TOY_MEASURE + anchor, 1))
    (repo / "lrworld/templates/movie/toy_genre").mkdir()
    shutil.copy(repo / "lrworld/templates/movie/attr_genre/zero_shot.txt",
                repo / "lrworld/templates/movie/toy_genre/zero_shot.txt")
    # the backend: one file
    (repo / "lrworld/models/backends/toy.py").write_text(TOY_BACKEND)
    # the variants: one function each
    variants = repo / "lrworld/prompts/variants.py"
    variants.write_text(variants.read_text() + TOY_VARIANTS)
    assert changed_files(ROOT / "lrworld", repo / "lrworld") == {
        "questions/measures.py", "templates/movie/toy_genre", "models/backends/toy.py", "prompts/variants.py"}

    work = tmp_path / "work"
    work.mkdir()
    cfg = {"seed": 3, "cache_dir": str(work / "cache"), "questions": {"per_measure": 30},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre", "toy_genre"],
                               "source": {"path": str(shared_data / "movielens-100k/raw")}}},
           "models": {"random": {"backend": "random"}, "toy": {"backend": "toy", "slot": 2}},
           "variants": ["zero_shot", "flip", "backwards"]}
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    # a key the toy backend does not declare is rejected at start, naming it
    bad = dict(cfg, models={"toy": {"backend": "toy", "slots": 2}})
    (work / "bad.yaml").write_text(yaml.safe_dump(bad))
    proc = snakemake(work, "-n", "--configfile", str(work / "bad.yaml"), snakefile=repo / "Snakefile", check=False)
    assert proc.returncode != 0 and "models.toy.slots: unknown key for backend 'toy'" in proc.stdout + proc.stderr

    snakemake(work, snakefile=repo / "Snakefile")
    table = pd.read_csv(work / "results/tables/ml.csv").set_index("model")
    prompts = [json.loads(line) for line in (work / "results/prompts/ml/toy_genre/zero_shot.jsonl").open()]
    assert len(prompts) == 30
    # the toy backend always picks slot 2: its score is the share of questions whose answer sits there
    assert table.loc["toy", "toy_genre"] == pytest.approx(sum(p["answer_index"] == 2 for p in prompts) / 30, abs=1e-4)
    assert list(table.index) == ["random", "toy"] and "attr_genre" in table.columns
    # the permuting variants passed the audit (it gates the answer jobs) and moved the answer as declared
    for variant, moved in [("flip", lambda a: {0: 1, 1: 0}.get(a, a)), ("backwards", lambda a: 3 - a)]:
        shown = [json.loads(line) for line in (work / f"results/prompts/ml/toy_genre/{variant}.jsonl").open()]
        assert [p["answer_index"] for p in shown] == [moved(p["answer_index"]) for p in prompts]
        assert table.loc["toy", f"toy_genre@{variant}"] == pytest.approx(
            sum(p["answer_index"] == 2 for p in shown) / 30, abs=1e-4)
    # and its numbers have their provenance and audit like every other
    rec = json.loads((work / "results/provenance/ml/toy/toy_genre/zero_shot.json").read_text())
    assert any(n["role"] == "audit" for n in rec["chain"])
