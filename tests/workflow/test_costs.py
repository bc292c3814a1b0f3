"""`lrworld plan` (lrworld/workflow/costs.py): prompts, cached, missing, tokens and API cost per
answer job, and the missing-key warning, before anything is built."""

import shutil

import pytest

from lrworld.cli import main
from lrworld.groundtruth import specimen
from lrworld.models import input_tokens
from lrworld.prompts.render import template_path
from lrworld.workflow import costs, dryrun
from tests.graph import ROOT

DEFAULT_MEASURES = ("assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items", "attr_genre")


def specimens(measures=DEFAULT_MEASURES) -> list[str]:
    """config.yaml's specimen prompt of each measure: 5 history items, candidate users by 5 items."""
    qcfg = {"history_length": 5, "exclude_values": {"genres": ["IMAX", "(no genres listed)"]}}
    return [specimen.specimen_prompt("movie", m, "zero_shot", template_path("movie", m, "zero_shot"), qcfg,
                                     user_items=5, seed=2024) for m in measures]

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
    # each unbuilt file: its 50 questions, each as long as its measure's specimen prompt in o200k_base
    count, _ = input_tokens.api_counter({"model": "gpt-4o-mini-2024-07-18"})
    assert gpt["tokens_by"] == "specimen estimate" and gpt["tokens_estimated"] and not gpt["tokens_bound"]
    assert gpt["input_tokens"] == 50 * sum(map(count, specimens()))
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
    assert smol["tokens_by"] == "tokenizer with chat template + specimen estimate"
    # the 5 unbuilt files: 2 questions each, as long as their specimen prompts in SmolLM2's chat template
    from lrworld.models import input_tokens

    assert smol["input_tokens"] - exact == 2 * sum(map(input_tokens.local_counter("smollm2-135m", dict(
        load(workdir, [])["models"]["smollm2-135m"])), specimens(DEFAULT_MEASURES[:5])))


def test_the_cli_prints_prompts_and_tokens_per_model_and_warns(workdir, capsys):
    assert main(["plan", "-d", str(workdir), "--configfile", str(workdir / "api.yaml")]) == 0
    out, err = capsys.readouterr()
    assert "gpt-4o-mini-2024-07-18  prompts  ~    300" in out and "input tokens  ~" in out and "cost ~ $" in out
    assert "per model: random ~300 missing prompts, ~" in out
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
    assert "models.remote: no entry in prices: its cost is not known" in text
    # a server on this machine needs no key and costs nothing: no warning, priced at zero
    assert "models.local" not in text
    jobs = {j["model"]: j for j in res["jobs"]}
    assert jobs["local"]["cost_usd"] == 0 and jobs["local"]["local_server"] and jobs["remote"]["cost_usd"] is None
    printed = costs.format_costs(res)
    assert "cost $0.00 (local server)" in printed.split("\n  local")[1].split("\n")[0]
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


def _gpt4o_image_tokens(width: int, height: int) -> int:
    """OpenAI's published count of one image at detail "high" for gpt-4o: fit in 2048 x 2048, shortest
    side scaled to 768, then 85 + 170 per 512 px tile."""
    import math

    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = 768 / min(w, h) if min(w, h) > 768 else 1.0
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def test_an_api_captioners_unbuilt_requests_are_bounded_by_the_items_and_the_image_maximum(workdir, shared_data,
                                                                                          monkeypatch):
    """A caption request file not yet built: at most one request per item of the built items
    table, each its instruction and one image at the model's most tokens ("<="); every printed
    "<=" is at or above the real requests' count (o200k_base over the messages, OpenAI's tile rule
    for each real image), before and after the file is built."""
    import json
    import subprocess

    from PIL import Image

    from lrworld.captions import requests as caption_requests
    from lrworld.captions.fetch import FetchPolicy
    from tests.support.fixtures_graph import smk_cmd

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (workdir / "cap.yaml").write_text(
        "datasets:\n  ml:\n    domain: movie\n    format: ml-100k\n"
        f"    source: {{path: {shared_data / 'movielens-100k/raw'}}}\n    image_dir: posters\n    measures: [multimodal]\n"
        "models: {random: {backend: random}}\n"
        "captioner: {backend: openai, model: gpt-4o-2024-05-13, max_tokens: 300}\n"
        "prices:\n  captioner: {input_per_mtok: 2.5, output_per_mtok: 10.0}\n")
    cfgs = [str(workdir / "cap.yaml")]

    def captioner():
        res = costs.plan_costs(workdir, cfgs)
        (job,) = [j for j in res["jobs"] if j["model"] == "captioner"]
        line = next(ln for ln in costs.format_costs(res).splitlines() if ln.startswith("  captioner"))
        return job, line

    job, line = captioner()  # nothing built: the file cannot be counted, so no bound is printed
    assert job["not_estimated_files"] == 1 and "<=" not in line and "cost: not known" in line
    proc = subprocess.run([*smk_cmd(workdir, "results/data/ml/items.parquet"), "--configfile", *cfgs],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    items = __import__("pandas").read_parquet(workdir / "results/data/ml/items.parquet")
    count, how = input_tokens.api_counter({"model": "gpt-4o-2024-05-13"})
    instruction = caption_requests.instruction()
    job, line = captioner()
    assert (job["prompts"], job["missing"], job["bounded_prompts"], job["not_estimated_files"]) == (len(items),) * 3 + (0,)
    assert job["input_tokens"] == len(items) * (count(instruction) + 85 + 170 * 8)
    assert job["cost_is_bound"] and job["cost_usd"] == round(
        (job["input_tokens"] * 2.5 + len(items) * 300 * 10.0) / 1e6, 4)
    assert f"prompts <= {len(items):>6}" in line and "input tokens <=" in line and "cost <= $" in line

    # the real requests: three posters of three sizes
    (workdir / "posters").mkdir()
    sizes = {"1": (300, 450), "50": (1000, 1500), "100": (3000, 2000)}
    for item_id, size in sizes.items():
        Image.new("RGB", size, (200, 30, 30)).save(workdir / "posters" / f"{item_id}.png")
    reqs, _ = caption_requests.build("ml", items, instruction, workdir / "downloads", FetchPolicy(max_bytes=10**8),
                                     image_dir=workdir / "posters")
    assert len(reqs) == 3
    real_in = sum(count(r["prompt"]) + _gpt4o_image_tokens(*sizes[r["item_id"]]) for r in reqs)
    real_cost = (real_in * 2.5 + 3 * 300 * 10.0) / 1e6  # the most output max_tokens allows
    assert job["input_tokens"] >= real_in and job["cost_usd"] >= real_cost
    (workdir / "results/captions/ml").mkdir(parents=True)
    (workdir / "results/captions/ml/requests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in reqs))
    monkeypatch.setattr(dryrun, "needrun", lambda *args: {})  # a file the run keeps: counted as it is
    job, line = captioner()  # built: its 3 requests, each image at its most tokens
    assert (job["prompts"], job["bounded_prompts"], job["tokens_bound"]) == (3, 0, True)
    assert job["input_tokens"] == sum(count(r["prompt"]) + 85 + 170 * 8 for r in reqs) >= real_in
    assert "input tokens <=" in line and "cost <= $" in line and job["cost_usd"] >= round(real_cost, 4)
