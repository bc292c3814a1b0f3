"""Throughput of the openai backend: concurrency 8 vs 1.

    python benchmarks/bench_openai_concurrency.py                  # real llama.cpp + SmolLM2, 40 MCQ prompts
    python benchmarks/bench_openai_concurrency.py --mode generate --max-tokens 16
    python benchmarks/bench_openai_concurrency.py fault --n 20000   # fault server, no model, concurrency 32

`llama`: one in-process llama.cpp server (127.0.0.1, n_parallel = the highest concurrency, prompt
cache off so the runs do not help each other), the same prompts at each concurrency, printed side by
side with the ratio. `fault`: N prompts against the fault-injecting server with a fault rate, checks
that every prompt was answered exactly once.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import docs_block  # noqa: E402
from lrworld.models.base import PromptItem  # noqa: E402
from lrworld.models.backends.openai import OpenAIBackend  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs" / "openai_backend.md"
MOVIES = ["Toy Story", "Heat", "Fargo", "Alien", "Up", "Cars", "Jaws", "Rocky", "Coco", "Psycho", "Brave", "Casino",
          "Scream", "Seven", "Ran", "Saw", "Big", "Juno", "Gravity", "Arrival", "Amelie", "Memento", "Clueless",
          "Vertigo", "Shrek", "Mulan", "Frozen", "Tangled", "Rango", "Hugo", "Drive", "Whiplash", "Her", "Room",
          "Moonlight", "Parasite", "Inception", "Titanic", "Gladiator", "Braveheart"]


def mcq_prompts(n: int, seed: int = 0) -> list[PromptItem]:
    rng = random.Random(seed)
    items = []
    for i in range(n):
        liked = rng.sample(MOVIES, 3)
        options = rng.sample([m for m in MOVIES if m not in liked], 4)
        prompt = (f"A user watched and liked: {'; '.join(liked)}.\n"
                  "Which movie will the user most likely watch next?\n"
                  + "".join(f"{label}. {m}\n" for label, m in zip("ABCD", options))
                  + "Answer with the letter only.")
        items.append(PromptItem(qid=f"b{i}", prompt=prompt, labels=("A", "B", "C", "D"), candidates=tuple(options)))
    return items


def run(backend: OpenAIBackend, items: list[PromptItem]) -> tuple[float, list]:
    t0 = time.perf_counter()
    out = backend.answer(items)
    return time.perf_counter() - t0, out


def bench_llama(args, load_before: str = "unknown") -> None:
    from tests.support.llama_server import llama_server

    items = mcq_prompts(args.n)
    levels = sorted(set(args.concurrency))
    with llama_server(n_ctx=512 * max(levels), n_parallel=max(levels), n_threads=args.threads,
                      cache_prompt=False, alias="smollm2") as url:
        base = {"backend": "openai", "model": "smollm2", "base_url": url, "mode": args.mode,
                "max_tokens": args.max_tokens, "timeout_s": 600}
        OpenAIBackend("warm", {**base, "concurrency": 1}).answer(items[:1])  # load pages, build graphs
        rows = []
        for c in levels:
            elapsed, out = run(OpenAIBackend(f"c{c}", {**base, "concurrency": c}), items)
            tokens_in = sum(r.tokens_in or 0 for r in out)
            tokens_out = sum(r.tokens_out or 0 for r in out)
            lat = sorted(r.latency_s for r in out)
            rows.append((c, elapsed, len(out) / elapsed, tokens_in / elapsed, tokens_out, lat[len(lat) // 2],
                         [r.choice_index if args.mode == "choice" else r.raw_text for r in out]))
    lines = []
    if len(rows) >= 2:
        same = sum(a == b for a, b in zip(rows[0][6], rows[-1][6]))
        lines += [f"- ratio concurrency {rows[-1][0]} / {rows[0][0]} (prompts/s): **{rows[-1][2] / rows[0][2]:.2f}x**",
                  f"- same answer at both levels: {same}/{len(items)}", ""]
    lines += [f"llama.cpp SmolLM2-135M Q4_1, {args.n} MCQ prompts, mode={args.mode}, max_tokens="
              f"{1 if args.mode == 'choice' else args.max_tokens}, n_threads={args.threads}, "
              f"n_parallel={max(levels)}, cpus={os.cpu_count()}:", "",
              "| concurrency | wall s | prompts/s | prompt tok/s | tokens out | median latency s |",
              "|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {c} | {elapsed:.2f} | {pps:.2f} | {tps:.1f} | {tout} | {med:.2f} |"
              for c, elapsed, pps, tps, tout, med, _ in rows]
    text = "\n".join(lines)
    print(text)
    if args.write_docs:
        docs_block.write(DOCS, f"bench_openai_concurrency_{args.mode}", text, docs_block.command(None), load_before,
                         "bench_openai_concurrency")


def bench_fault(args, load_before: str) -> None:
    from tests.support.fault_server import FaultServer, expected_label

    items = [PromptItem(qid=f"f{i}", prompt=f"fault-load question {i}", labels=("A", "B", "C", "D"))
             for i in range(args.n)]
    with FaultServer(fault_rate=args.fault_rate, seed=1) as srv:
        b = OpenAIBackend("fault", {"backend": "openai", "model": "fault-model", "base_url": srv.base_url,
                                    "mode": "choice", "concurrency": args.fault_concurrency,
                                    "retry_base_s": 0.001, "retry_max_delay_s": 0.01, "timeout_s": 30})
        elapsed, out = run(b, items)
        faults = srv.faults_served()
        once = len(srv.answered) == args.n and set(srv.answered.values()) == {1}
        in_order = [r.qid for r in out] == [it.qid for it in items]
        right = all(r.choice_index is not None and "ABCD"[r.choice_index] == expected_label(it.prompt)
                    for it, r in zip(items, out))
        requests = sum(srv.requests.values())
    injected = sum(v for k, v in faults.items() if k != "ok")
    # every fault re-asked once more, nothing else: the request count is the prompts plus the faults
    once = once and right and requests == args.n + injected
    text = (f"fault server: {args.n:,} prompts, concurrency {args.fault_concurrency}, {injected:,} injected faults "
            f"({dict(faults)}), {elapsed:.1f} s, {args.n / elapsed:.0f} prompts/s (client and server in one process); "
            f"each answered exactly once (right answer, one request per prompt and fault): {once}; in order: {in_order}")
    print(text)
    if args.write_docs:
        docs_block.write(DOCS, "bench_openai_concurrency_fault", text, docs_block.command(None), load_before,
                         "bench_openai_concurrency")
    if not (once and in_order):
        sys.exit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("target", nargs="?", choices=["llama", "fault"], default="llama")
    ap.add_argument("--n", type=int, default=None, help="prompts (default 40 for llama, 20000 for fault)")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--mode", choices=["choice", "generate"], default="choice")
    ap.add_argument("--max-tokens", type=int, default=16, help="generate mode only")
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp CPU threads")
    ap.add_argument("--fault-rate", type=float, default=0.05)
    ap.add_argument("--fault-concurrency", type=int, default=32)
    ap.add_argument("--write-docs", action="store_true",
                    help="write the figures into docs/openai_backend.md's bench_openai_concurrency_<mode> "
                         "(llama) or _fault block")
    args = ap.parse_args()
    load_before = docs_block.load()
    if args.target == "llama":
        args.n = args.n or 40
        bench_llama(args, load_before)
    else:
        args.n = args.n or 20000
        bench_fault(args, load_before)


if __name__ == "__main__":
    main()
