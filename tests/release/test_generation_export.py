"""A generating variant (cot) is exported as it is scored: lm-eval's `generate_until` task and
Inspect's generate-mode task, each run from a folder that is not the release's with a scripted
model, read every reply with lrworld's parser and give lrworld's verdict on every question
(`lrworld.inference.stage`'s parse_choice against answer_index), per variant."""

import json
import re

import pytest

from lrworld.release import interop
from lrworld.scoring.parse import parse_choice
from tests.release.test_interop import _prompt
from tests.release.test_interop_tools import MAN

# a chain of thought ending in its answer, a lead label, a candidate named, a refusal, a label the
# question does not offer, a reasoning that names an option before concluding with another
REPLIES = {"mcq": ["Let's see. B looks odd, so the answer is C.", "A) mcq 1 option 0", "It is mcq 2 option 3.",
                   "I cannot tell.", "Answer: Z", "Option A? No: the answer is (D)"],
           "hit10": ["The answer is 7", "3: hit10 1 option 3", "Probably [0], i.e. 0", "none of them"]}
GOLD = {"mcq": [2, 0, 3, 1, 1, 3], "hit10": [7, 2, 0, 5]}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    rel = tmp_path_factory.mktemp("release")
    for m, golds in GOLD.items():
        n = 4 if m == "mcq" else 10
        for v in MAN["variants"]:
            rows = []
            for q, gold in enumerate(golds):
                row = _prompt(f"toy/{m}/{q}", v, n, gold)
                row["candidates"] = [f"{m} {q} option {i}" for i in range(n)]
                sep = "." if n == 4 else ":"
                row["prompt"] = (f"Question {q} of {m}: which one?\n" + "\n".join(
                    f"{lab}{sep} {c}" for lab, c in zip(row["labels"], row["candidates"]))
                    + ("\nLet's think step by step.\n" if v == "cot" else "\nAnswer:\n"))
                rows.append(row)
            (rel / f"prompts/{m}").mkdir(parents=True, exist_ok=True)
            (rel / f"prompts/{m}/{v}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    interop.write(rel, MAN)
    return rel


def reply_to(text: str) -> str:
    q, m = re.match(r"Question (\d+) of (\w+):", text).groups()
    return REPLIES[m][int(q)]


def lrworld_verdicts(release) -> dict[str, bool]:
    out = {}
    for m in GOLD:
        for r in map(json.loads, (release / f"prompts/{m}/cot.jsonl").read_text().splitlines()):
            out[r["qid"]] = parse_choice(reply_to(r["prompt"]), r["labels"], r["candidates"]) == r["answer_index"]
    return out


def test_lm_eval_scores_cot_as_generation_read_by_lrworlds_parser(release, tmp_path, monkeypatch):
    import lm_eval
    from lm_eval import tasks
    from lm_eval.api.model import LM

    class Scripted(LM):
        def generate_until(self, requests):
            return [reply_to(r.args[0]) for r in requests]

        def loglikelihood(self, requests):
            raise AssertionError("a cot task must not be scored by log-likelihood")

        loglikelihood_rolling = loglikelihood

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    tm = tasks.TaskManager(include_path=str(release / "lm_eval"), include_defaults=False)
    res = lm_eval.simple_evaluate(model=Scripted(), tasks=["lrworld_toy_cot"], task_manager=tm, log_samples=True)
    expected = lrworld_verdicts(release)
    got = {s["doc"]["qid"]: s["exact_match"] == 1.0 for t in res["samples"].values() for s in t}
    assert got == expected and 0 < sum(expected.values()) < len(expected)
    for m in GOLD:
        mine = [v for q, v in expected.items() if f"/{m}/" in q]
        assert res["results"][f"lrworld_toy_{m}_cot"]["exact_match,lrworld_parse"] == pytest.approx(sum(mine) / len(mine))
    assert "lrworld_toy_mcq" not in res["results"]  # the cot group holds cot tasks only


def test_inspect_scores_cot_by_generation_read_by_lrworlds_parser(release, tmp_path, monkeypatch):
    import importlib.util

    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    sent = {}

    def reply(messages, tools, tool_choice, config):
        sent[messages[-1].text] = config.temperature
        out = ModelOutput.from_content(model="mockllm", content=reply_to(messages[-1].text))
        out.usage = ModelUsage()  # else mockllm counts tokens with tiktoken, which downloads its encoding
        return out

    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("lrworld_toy_inspect_cot", release / "inspect_task.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(ValueError, match="scored by generating text"):
        mod.lrworld_toy(variant="cot", mode="choice")
    [log] = inspect_eval(mod.lrworld_toy(variant="cot"), model=get_model("mockllm/model", custom_outputs=reply),
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    got = {s.id: s.scores["lrworld_parsed"].value == "C" for s in log.samples}
    assert got == lrworld_verdicts(release)
    prompts = [json.loads(line)["prompt"] for m in GOLD for line in (release / f"prompts/{m}/cot.jsonl").read_text().splitlines()]
    assert sorted(sent) == sorted(prompts) and set(sent.values()) == {0.0}  # lrworld's prompt, greedy
