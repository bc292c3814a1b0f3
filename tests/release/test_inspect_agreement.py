"""Inspect's task scores a release as lrworld does whenever the answer is readable: the release's
`inspect_task.py` run by `inspect_ai.eval` with Inspect's `mockllm/model`, scripted to reply
'ANSWER: <letter>' per question, against lrworld's own scoring (`lrworld.scoring.metrics.score`,
HitRate@1) of the same chosen options, on a hand-written release of one 4-option and one
10-option measure."""

import json
import re

import pytest

from lrworld.release import interop
from lrworld.scoring.metrics import score
from tests.release.test_interop import _prompt
from tests.release.test_interop_tools import MAN

# (gold index, scripted letter) per question: 3 of 5 right on the 4-option measure, 2 of 4 on the
# 10-option one (H and J are options 7 and 9 of 10), so accuracy 5 / 9 in both tools
SCRIPT = {"mcq": [(2, "C"), (0, "B"), (3, "D"), (1, "A"), (1, "B")],
          "hit10": [(7, "H"), (0, "J"), (4, "E"), (9, "A")]}


def _candidate(m, q, i):
    return f"{m} question {q} option {i}"  # distinct per question, so a shifted list would show


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    rel = tmp_path_factory.mktemp("release")
    for m, script in SCRIPT.items():
        n = 4 if m == "mcq" else 10
        for v in MAN["variants"]:
            rows = []
            for q, (gold, _) in enumerate(script):
                row = _prompt(f"toy/{m}/{q}", v, n, gold)
                row["candidates"] = [_candidate(m, q, i) for i in range(n)]
                sep = "." if n == 4 else ":"
                row["prompt"] = (f"Question {q} of {m}: which one?\n" + "\n".join(
                    f"{lab}{sep} {c}" for lab, c in zip(row["labels"], row["candidates"])) + "\nAnswer:\n")
                rows.append(row)
            (rel / f"prompts/{m}").mkdir(parents=True, exist_ok=True)
            (rel / f"prompts/{m}/{v}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    interop.write(rel, MAN)
    return rel


@pytest.fixture(scope="module")
def scripted(release, tmp_path_factory):
    """Inspect's log of the release's task, zero_shot, every measure, with the scripted replies, and
    the user message the model got per question."""
    import importlib.util

    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    letters = {f"toy/{m}/{q}": letter for m, script in SCRIPT.items() for q, (_, letter) in enumerate(script)}
    sent = {}

    def reply(messages, tools, tool_choice, config):
        text = messages[-1].text
        m, q = re.match(r"Question (\d+) of (\w+):", text).group(2, 1)
        sent[f"toy/{m}/{q}"] = text
        out = ModelOutput.from_content(model="mockllm", content=f"ANSWER: {letters[f'toy/{m}/{q}']}")
        out.usage = ModelUsage()  # else mockllm counts tokens with tiktoken, which downloads its encoding
        return out

    spec = importlib.util.spec_from_file_location("lrworld_toy_inspect_agreement", release / "inspect_task.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    logs = tmp_path_factory.mktemp("inspect_logs")
    [log] = inspect_eval(mod.lrworld_toy(), model=get_model("mockllm/model", custom_outputs=reply),
                         log_dir=str(logs), display="none")
    assert log.status == "success", log.error
    return log, sent


def _rows(release, variant="zero_shot"):
    return [r for m in SCRIPT for r in map(json.loads, (release / f"prompts/{m}/{variant}.jsonl").read_text().splitlines())]


def test_inspects_choice_verdict_equals_lrworlds_for_every_scripted_letter(release, scripted):
    log, _ = scripted
    rows = {r["qid"]: r for r in _rows(release)}
    theirs = {s.id: s.scores["choice"] for s in log.samples}
    assert sorted(theirs) == sorted(rows)
    # lrworld's records: the option the letter names, against the release's answer_index
    ours = {q: {"parsed": ord(theirs[q].answer) - ord("A"), "answer_index": rows[q]["answer_index"]} for q in rows}
    for q in rows:
        assert (theirs[q].value == "C") == (ours[q]["parsed"] == ours[q]["answer_index"]), q
    assert [theirs[f"toy/mcq/{q}"].value for q in range(5)] == ["C", "I", "C", "I", "C"]
    assert [theirs[f"toy/hit10/{q}"].value for q in range(4)] == ["C", "I", "C", "I"]
    lr = score(list(ours.values()), "hit_ratio_at_1")
    inspect_acc = log.results.scores[0].metrics["accuracy"].value
    assert (lr["correct"], lr["n"]) == (5, 9)
    assert inspect_acc == pytest.approx(lr["hit_ratio_at_1"]) == pytest.approx(5 / 9)
    per_measure = {m: score([ours[f"toy/{m}/{q}"] for q in range(len(s))], "hit_ratio_at_1")["hit_ratio_at_1"]
                   for m, s in SCRIPT.items()}
    assert per_measure == {"mcq": 3 / 5, "hit10": 2 / 4}


def test_inspect_sends_lrworlds_question_and_candidates_in_the_releases_order(release, scripted):
    _, sent = scripted
    for r in _rows(release):
        text = sent[r["qid"]]
        question = r["prompt"].split("\n")[0]
        options = "\n".join(f"{chr(ord('A') + i)}) {c}" for i, c in enumerate(r["candidates"]))
        assert text.startswith(question + "\n" + options + "\n\n"), r["qid"]
        # letter i and lrworld's label i name the same candidate
        for i, (lab, c) in enumerate(zip(r["labels"], r["candidates"])):
            assert f"\n{lab}{'.' if len(r['labels']) == 4 else ':'} {c}\n" in r["prompt"]
            assert f"\n{chr(ord('A') + i)}) {c}\n" in text + "\n"
        letters = ",".join(chr(ord("A") + i) for i in range(len(r["labels"])))
        assert text.endswith(f"where LETTER is one of {letters}.")
    assert len(sent) == 9
