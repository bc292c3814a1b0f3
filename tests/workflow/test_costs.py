"""`lrworld plan` (lrworld/workflow/costs.py): prompts, cached, missing, tokens and API cost per
answer job, and the missing-key warning, before anything is built."""

import shutil

import pytest

from lrworld.cli import main
from lrworld.workflow import costs, dryrun
from tests.graph import ROOT

OVERLAY = """models:
  random: {backend: random, seed: 0}
  gpt-4o-mini-2024-07-18: {enabled: true}
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    (tmp_path / "api.yaml").write_text(OVERLAY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return tmp_path


def test_an_unbuilt_run_is_estimated_from_its_templates_and_priced(workdir):
    res = costs.plan_costs(workdir, [str(workdir / "api.yaml")])
    jobs = {(j["scope"], j["model"]): j for j in res["jobs"]}
    gpt = jobs[("ml100k", "gpt-4o-mini-2024-07-18")]
    # config.yaml: 6 measures x 50 questions x zero_shot, none built or cached yet
    assert (gpt["prompts"], gpt["cached"], gpt["missing"], gpt["estimated_prompts"]) == (300, 0, 300, 300)
    assert gpt["tokens_by"] == "estimate" and 100 * 300 < gpt["input_tokens"] < 1000 * 300
    # 0.15 $ per million input tokens, 0.60 per million output tokens, max_tokens 64 per prompt
    assert gpt["output_tokens_max"] == 300 * 64
    assert gpt["cost_usd"] == pytest.approx(gpt["input_tokens"] * 0.15e-6 + 300 * 64 * 0.60e-6, abs=1e-4)
    assert "cost_usd" not in jobs[("ml100k", "random")]
    assert res["warnings"] == ["models.gpt-4o-mini-2024-07-18: enabled, but environment variable OPENAI_API_KEY "
                               "is not set: the OpenAI API will refuse its requests (its answer jobs will fail; "
                               "set it, or disable it)"]
    assert not gpt["cost_is_bound"]  # estimated prompts: printed "cost ~"


@pytest.mark.slow  # loads SmolLM2's tokenizer from its GGUF
def test_built_prompts_are_counted_with_the_local_models_tokenizer(workdir, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (workdir / "local.yaml").write_text("questions: {per_measure: 2}\nmodels:\n  smollm2-135m: {enabled: true}\n")
    prompt = {"qid": "ml100k/attr_genre/1", "prompt": "Which genre?\nA. War\nB. Comedy\nAnswer:\n",
              "labels": ["A", "B"]}
    # a file the run keeps (its dry run stubbed: nothing to rerun), so counted as it is
    monkeypatch.setattr(dryrun, "needrun", lambda *args: {})
    (workdir / "results/questions/ml100k").mkdir(parents=True)
    (workdir / "results/questions/ml100k/attr_genre.jsonl").write_text("{}\n")
    (workdir / "results/questions/ml100k/attr_genre.report.json").write_text(
        '{"requested": 2, "seed": 2024, "history_length": 5}')
    (workdir / "results/prompts/ml100k/attr_genre").mkdir(parents=True)
    (workdir / "results/prompts/ml100k/attr_genre/zero_shot.jsonl").write_text(
        __import__("json").dumps(prompt) + "\n")
    res = costs.plan_costs(workdir, [str(workdir / "local.yaml")])
    (smol,) = [j for j in res["jobs"] if j["model"] == "smollm2-135m"]
    assert smol["prompts"] == 1 + 5 * 2 and smol["estimated_prompts"] == 10  # one built file, 5 estimated
    from lrworld.models import make_backend
    from lrworld.workflow.status import load

    tok = make_backend("smollm2-135m", dict(load(workdir, [])["models"]["smollm2-135m"])).tokenizer
    exact = len(tok.apply_chat_template([{"role": "user", "content": prompt["prompt"]}], add_generation_prompt=True,
                                        tokenize=True, return_dict=True)["input_ids"])  # the template it reads
    assert smol["tokens_by"] == "tokenizer with chat template + estimate"
    assert smol["input_tokens"] - exact == sum(
        costs._estimate(costs._unbuilt(costs.Plan(costs.run_status.fill_defaults(load(workdir, [str(workdir / "local.yaml")])), ROOT), f)[1])
        for f in [f"results/prompts/ml100k/{m}/zero_shot.jsonl" for m in
                  ("assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items")])


def test_the_cli_prints_prompts_and_tokens_per_model_and_warns(workdir, capsys):
    assert main(["plan", "-d", str(workdir), "--configfile", str(workdir / "api.yaml")]) == 0
    out, err = capsys.readouterr()
    assert "gpt-4o-mini-2024-07-18  prompts ~    300" in out and "input tokens ~" in out and "cost ~ $" in out
    assert "per model: random 300 missing prompts" in out
    assert "warning: models.gpt-4o-mini-2024-07-18: enabled, but environment variable OPENAI_API_KEY" in err


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith("lrworld ")


def test_the_papers_scale_is_priced_from_the_papers_counts():
    """questions.per_measure: paper: an unbuilt prompt file holds the paper's count of its measure
    (the scale's figure: every variant of every question, for the one enabled model)."""
    from lrworld.workflow import scale

    planned = scale.load_plan(ROOT, [ROOT / "config/paper.yaml"])
    jobs = [j for j in costs.plan_costs(ROOT, plan=planned)["jobs"] if j["track"] == "lrworld"]
    assert {j["model"] for j in jobs} == {"random"}
    # zero-shot on every measure: RANDOM runs none of the paper's ablations (experiments: paper)
    assert sum(j["prompts"] for j in jobs) == scale.scale(plan=planned)["total"]["prompts"] == 38_485



def test_a_remote_server_without_its_key_and_an_api_captioner_are_warned_of_and_priced(workdir):
    (workdir / "remote.yaml").write_text(
        "models:\n  remote: {backend: openai, model: m, base_url: 'https://llm.example.org/v1'}\n"
        "  local: {backend: openai, model: m, base_url: 'http://127.0.0.1:8080/v1'}\n"
        "captioner: {backend: openai, model: gpt-4o-2024-05-13}\n"
        "prices:\n  captioner: {input_per_mtok: 5.0, output_per_mtok: 15.0}\n")
    res = costs.plan_costs(workdir, [str(workdir / "api.yaml"), str(workdir / "remote.yaml")])
    text = "\n".join(res["warnings"])
    assert "models.remote: enabled, but environment variable OPENAI_API_KEY is not set: the remote server " \
           "https://llm.example.org/v1 will refuse" in text
    assert "models.local" not in text.replace("models.local: no entry in prices", "")
    # ml100k has no multimodal measure: no caption requests, so the captioner is not warned of
    assert "captioner" not in text
    assert not any(j["model"] == "captioner" for j in res["jobs"])


def test_a_prompt_file_built_for_another_count_counts_as_what_the_run_will_make(workdir, monkeypatch):
    """30 questions on disk, 50 planned: Snakemake's dry run reruns the file (its data is not there
    either) and, with no data to rebuild it from, it counts as the plan's 50 estimated prompts, not
    the 1 it holds; where the dry run leaves it, it counts as it is."""
    qdir, pdir = workdir / "results/questions/ml100k", workdir / "results/prompts/ml100k/attr_genre"
    qdir.mkdir(parents=True)
    pdir.mkdir(parents=True)
    (qdir / "attr_genre.jsonl").write_text("{}\n")
    (qdir / "attr_genre.report.json").write_text('{"requested": 30, "seed": 2024, "history_length": 5}')
    (pdir / "zero_shot.jsonl").write_text('{"qid": "q", "prompt": "Which genre?\\nAnswer:\\n", "labels": ["A"]}\n')

    def attr_genre_job():
        res = costs.plan_costs(workdir, [str(workdir / "api.yaml")])
        return next(j for j in res["jobs"] if j["model"] == "random")

    assert (attr_genre_job()["prompts"], attr_genre_job()["estimated_prompts"]) == (300, 300)
    monkeypatch.setattr(dryrun, "needrun", lambda *args: {})
    assert (attr_genre_job()["prompts"], attr_genre_job()["estimated_prompts"]) == (251, 250)
