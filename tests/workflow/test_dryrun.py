"""`lrworld plan`'s dry run (lrworld/workflow/dryrun.py): the jobs Snakemake would run, each with the
params and paths its script gets; where Snakemake cannot plan the run, the plan says why in one
line and counts the built request files as not yet known."""

import yaml

from lrworld.workflow import dryrun, scale
from lrworld.workflow.planned_prompts import PlannedPrompts

PROMPTS = "results/prompts/ml/neu_user2items/zero_shot.jsonl"


def _config(tmp_path, source) -> str:
    cfg = {"questions": {"per_measure": 7}, "groundtruth": {"kmeans": {"k": 4}},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "source": {"path": str(source)},
                               "measures": ["neu_user2items"]}},
           "models": {"random": {"backend": "random"}}}
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(cfg))
    return str(tmp_path / "mine.yaml")


def test_the_jobs_a_fresh_directory_runs_with_their_params(tmp_path, shared_data):
    mine = _config(tmp_path, shared_data / "movielens-100k/raw")
    plan = scale.load_plan(tmp_path, [mine])
    jobs = dryrun.needrun(plan.root, tmp_path, [mine], {}, [PROMPTS])
    assert {j.rule for j in jobs.values()} == {"ingest", "neumf", "prototypes", "gt_questions", "prompts"}
    proto = jobs["results/gt/ml/prototypes.parquet"]
    # the rule's own params, as its script gets them: the count and k of this config
    assert (proto.params.n_questions, proto.params.kmeans["k"], proto.wildcards.dataset) == (7, 4, "ml")
    assert proto.input.embeddings == "results/gt/ml/embeddings.parquet"
    assert jobs[PROMPTS].params.template == plan.template("ml", "neu_user2items", "zero_shot")
    assert not (tmp_path / "results").exists()  # a dry run writes no result


def test_a_run_snakemake_cannot_plan_is_said_and_not_counted(tmp_path):
    mine = _config(tmp_path, tmp_path / "gone")
    (tmp_path / "results").mkdir()
    planned = PlannedPrompts(scale.load_plan(tmp_path, [mine]), tmp_path)
    assert planned.records(PROMPTS) is None and planned.state == {PROMPTS: "estimated"}
    (warning,) = planned.warnings
    assert warning.startswith("snakemake -n could not plan the run (Missing input files for rule ingest:")
    assert str(tmp_path / "gone") in warning and "\n" not in warning
