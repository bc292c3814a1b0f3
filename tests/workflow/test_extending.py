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

from lrworld.scoring.table import LEARNED_ROW
from tests.graph import copy_checkout, snakemake
from tests.support.cooc_module import cooc_module

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


def copy_of_repo(tmp_path):
    """The checkout's code and config under tmp_path/repo, to extend as a user would."""
    return copy_checkout(tmp_path / "repo", COPY)


def test_a_toy_measure_and_a_toy_backend_run_through_the_graph(tmp_path, shared_data):
    repo = copy_of_repo(tmp_path)
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
    assert list(table.index) == ["random", LEARNED_ROW, "toy"] and "attr_genre" in table.columns
    # the permuting variants passed the audit (it gates the answer jobs) and moved the answer as declared
    for variant, moved in [("flip", lambda a: {0: 1, 1: 0}.get(a, a)), ("backwards", lambda a: 3 - a)]:
        shown = [json.loads(line) for line in (work / f"results/prompts/ml/toy_genre/{variant}.jsonl").open()]
        assert [p["answer_index"] for p in shown] == [moved(p["answer_index"]) for p in prompts]
        assert table.loc["toy", f"toy_genre@{variant}"] == pytest.approx(
            sum(p["answer_index"] == 2 for p in shown) / 30, abs=1e-4)
    # and its numbers have their provenance and audit like every other
    rec = json.loads((work / "results/provenance/ml/toy/toy_genre/zero_shot.json").read_text())
    assert any(n["role"] == "audit" for n in rec["chain"])


# --- a measure with its own ground-truth artifact (docs/extending.md, "A ground-truth measure") ----

TOY_ARTIFACT = '    "toy_pairs": Artifact("results/gt/{dataset}/toy_pairs.parquet", make="lrworld.groundtruth.toy:toy_pairs"),\n'

TOY_MODULE = cooc_module("toy_pairs", "toy_cooc")

TOY_GT_MEASURE = '''    Measure("toy_cooc", _PM, _PERS, "toy co-occurrence", HIT10, "lrworld.groundtruth.toy:build_questions",
            artifact="toy_pairs", gold=Gold(TABLE, "item", "item", "count")),
'''


def test_a_toy_ground_truth_measure_runs_through_the_graph_with_its_provenance(tmp_path, shared_data):
    repo = copy_of_repo(tmp_path)

    def append(path, text, anchor):
        f = repo / path
        f.write_text(f.read_text().replace(anchor, text + anchor, 1))

    # four files: the artifact's entry, the measure's entry, one module (the artifact's function and
    # the question builder), the template
    append("lrworld/groundtruth/artifacts.py", TOY_ARTIFACT, anchor="}\n\n\nREGISTRY")
    append("lrworld/questions/measures.py", TOY_GT_MEASURE, anchor='    Measure("next_artist"')
    (repo / "lrworld/groundtruth/toy.py").write_text(TOY_MODULE)
    shutil.copytree(repo / "lrworld/templates/movie/mem_item_item", repo / "lrworld/templates/movie/toy_cooc")
    assert changed_files(ROOT / "lrworld", repo / "lrworld") == {
        "groundtruth/artifacts.py", "groundtruth/toy.py", "questions/measures.py", "templates/movie/toy_cooc"}
    assert not changed_files(ROOT / "rules", repo / "rules") and not changed_files(ROOT / "scripts", repo / "scripts")

    work = tmp_path / "work"
    work.mkdir()
    cfg = {"seed": 3, "cache_dir": str(work / "cache"), "questions": {"per_measure": 20},
           "groundtruth": {"n_questions": 20},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["toy_cooc"],
                               "source": {"path": str(shared_data / "movielens-100k/raw")}}},
           "models": {"random": {"backend": "random"}}}
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(work, snakefile=repo / "Snakefile")

    pairs = pd.read_parquet(work / "results/gt/ml/toy_pairs.parquet")
    qs = [json.loads(line) for line in (work / "results/questions/ml/toy_cooc.jsonl").open()]
    report = json.loads((work / "results/questions/ml/toy_cooc.report.json").read_text())
    # a target whose options read alike is dropped by the shared builder, and counted
    assert len(qs) + report.get("dropped_same_text", 0) == 20 and len(qs) >= 15
    assert all(len(q["candidates"]) == 10 for q in qs)
    answers = dict(zip(pairs.loc[pairs["is_answer"], "target"], pairs.loc[pairs["is_answer"], "candidate"]))
    assert all(q["candidates"][q["answer_index"]] == answers[q["context"]["target_item"]] for q in qs)
    table = pd.read_csv(work / "results/tables/ml.csv").set_index("model")
    assert 0 <= table.loc["random", "toy_cooc"] <= 1
    # the new artifact is in the score's provenance: its file, the rule that made it, and that rule's code
    rec = json.loads((work / "results/provenance/ml/random/toy_cooc/zero_shot.json").read_text())
    gt = [n for n in rec["chain"] if n["role"] == "ground_truth"]
    assert [(n["rule"], Path(n["path"]).name) for n in gt] == [("gt_artifact", "toy_pairs.parquet")]
    assert {"scripts/groundtruth_artifact.py", "lrworld/groundtruth/toy.py"} <= set(rec["code"]["modules"]["gt_artifact"])
    assert "lrworld/groundtruth/toy.py" in rec["code"]["modules"]["gt_questions"]


# --- a recommender (docs/extending.md, "A recommender") ---------------------------------------------

TOY_RECOMMENDER = '''"""A toy recommender: the items with the most training interactions first, seen ones left out."""
from lrworld.recsys.training import Training

RECOMMENDER = {"name": "toyrec", "make": "ToyRec", "schema": {"skip": {"type": "integer", "minimum": 0, "default": 0}}}


class ToyRec:
    def __init__(self, name, skip):
        self.skip = skip

    def fit(self, data, seed, log=None):
        pop = data.popularity()
        self.order = sorted(data.item_ids, key=lambda i: -pop[i])[self.skip:]
        return Training(max_epochs=0, patience=None, valid_metric=None)

    def recommend(self, users, histories, k):
        return [[i for i in self.order if i not in set(histories.get(u, []))][:k] for u in users]
'''


def test_a_toy_recommender_is_one_file_and_runs_through_the_graph(tmp_path, shared_data):
    from lrworld.tracks.srbench.steps import load_split
    from lrworld.workflow.code import closure
    from tests.support.fixtures_yelp import write_yelp_fixture

    repo = copy_of_repo(tmp_path)
    (repo / "lrworld/recsys/toyrec.py").write_text(TOY_RECOMMENDER)
    assert changed_files(ROOT / "lrworld", repo / "lrworld") == {"recsys/toyrec.py"}
    # the training job's code includes the module, so editing it re-runs that job
    assert (repo / "lrworld/recsys/toyrec.py").resolve() in closure(repo, "scripts/srbench_baseline.py")

    work = tmp_path / "work"
    work.mkdir()
    rp, bp = write_yelp_fixture(work / "yelp", n_users=40, n_businesses=30, reviews_per_user=8, seed=2)
    sr = {"datasets": {"yelp": {"loader": "yelp", "review": str(rp), "business": str(bp), "kcore": 3}},
          "ks": [5, 10], "nn_runs": 1}
    cfg = {"models": {"random": {"backend": "random"}},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                               "source": {"path": str(shared_data / "movielens-100k/raw")}}},
           "srbench": {**sr, "baselines": {"popularity": {}, "toyrec": {"skips": 1}}}}
    # its settings are checked against the schema it declares, naming the key
    (work / "bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "-n", "--configfile", str(work / "bad.yaml"), snakefile=repo / "Snakefile", check=False)
    assert proc.returncode != 0 and "srbench.baselines.toyrec" in proc.stdout + proc.stderr
    assert "skips" in proc.stdout + proc.stderr
    cfg["srbench"]["baselines"] = {"popularity": {}, "toyrec": {}}
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(work, "results/tables/srbench_yelp.csv", snakefile=repo / "Snakefile")
    table = pd.read_csv(work / "results/tables/srbench_yelp.csv")
    rows = table.set_index(table.columns[0])
    assert list(rows.index) == ["popularity", "toyrec"]
    # its lists are the popular items the user has not met, and the table scores them
    split = load_split(work / "results/srbench/yelp/split.parquet", work / "results/srbench/yelp/items.parquet")
    hist, pop = split.histories(), split.popularity()
    lists = {r["user_id"]: r["items"] for r in map(json.loads, (work / "results/srbench/yelp/baselines/toyrec/seed0.jsonl").open())}
    assert set(lists) == set(split.eval_users)
    for user, items in lists.items():
        assert len(items) == 10 and not set(items) & set(hist[user])
        assert [pop[i] for i in items] == sorted((pop[i] for i in items), reverse=True)
    hits = [item in lists[user] for user, item in zip(split.test["user_id"], split.test["item_id"])]
    assert rows.loc["toyrec", "recall@10"] == pytest.approx(sum(hits) / len(hits), abs=1e-4) and any(hits)
