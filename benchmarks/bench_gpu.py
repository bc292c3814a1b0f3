"""Choice-scoring throughput at LRWorld scale on one CUDA GPU, with no network: a randomly
initialised model with a published 7B/8B architecture (built from its configuration in code; the
cost of a forward pass does not depend on the weights) scores LRWorld-shaped prompts in bf16
through the hf backend's choice-scoring pass (`last_token_logits`) with token-budget batching
(`plan_batches`), beside fixed batches of 8 in job order, then the same prompts through vLLM
when it is installed.

    python benchmarks/bench_gpu.py                       # Qwen2-7B on cuda, meant to take under 5 minutes on an H200
    python benchmarks/bench_gpu.py --arch llama3-8b --sample 0.1 --max-batch-tokens 131072
    python benchmarks/bench_gpu.py --tiny                # a small config on CPU: checks the script (tested)
    python benchmarks/bench_gpu.py --write-docs          # also writes the figures into docs/results.md

--write-docs: the token-budget / fixed-batch ratio first, then each path's row, into docs/results.md's
block (bench_gpu for a GPU run, bench_gpu_tiny for --tiny), stamped with the date, the machine's load
and the command (benchmarks/docs_block.py).

Prompts: the paper's 31 (dataset, measure) cells. Tokens per cell are Tables 16-17 (23.28M in all,
GPT-3.5 tokenizer); questions per cell are recovered from Tables 12-14 (the answer-position shares
are k/n with two decimals: n is the smallest count that reproduces every share of the cell; for
Netflix KG-cast and multimodal that gives 61 and 3.7k/10.5k-token prompts, so 8 x 61 = 488, also
consistent, is used). Each cell's prompts have its mean length (tokens / questions) +-15 %, a
20-token chat-template prefix shared by all and a 30-token template opening shared by the cell;
`--sample` of each cell's questions are scored (at least 4), and the figures are projected to the
whole set.

Prints tokens/s, questions/s, the projected time for the 23.3M tokens, and the ratio to the compute
floor: 2 x (parameters of the decoder layers) FLOP per token plus the causal attention term,
over --peak-tflops (989: H100/H200 SXM dense bf16).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from lrworld.models.batching import PaddingStats, plan_batches  # noqa: E402
from lrworld.models.backends.hf import last_token_logits  # noqa: E402
from lrworld.core.seeding import rng_for  # noqa: E402
from benchmarks import docs_block  # noqa: E402

DOCS = ROOT / "docs" / "results.md"

# (dataset, factor, prompt tokens fed to GPT-3.5 [Tables 16-17], questions [from Tables 12-14])
PAPER_CELLS = [
    ("amazon", "assoc_rule", 71479, 118), ("amazon", "mem_item_item", 154703, 305),
    ("amazon", "mem_user_user", 3694227, 3546), ("amazon", "neu_item2users", 979524, 1000),
    ("amazon", "neu_user2items", 570655, 1000), ("amazon", "kg_brand", 942859, 1344),
    ("amazon", "kg_color", 846530, 1898), ("amazon", "taxo_leaf", 466104, 868),
    ("amazon", "taxo_interm", 473104, 1304), ("amazon", "taxo_root", 460876, 1304),
    ("amazon", "multimodal", 2350742, 1259),
    ("movielens", "assoc_rule", 1265565, 3238), ("movielens", "mem_item_item", 763034, 2704),
    ("movielens", "mem_user_user", 1756764, 1790), ("movielens", "neu_item2users", 985658, 1000),
    ("movielens", "neu_user2items", 368123, 1000), ("movielens", "kg_cast", 137086, 297),
    ("movielens", "kg_director", 88973, 297), ("movielens", "attr_genre", 85503, 297),
    ("movielens", "text_logline", 141767, 297), ("movielens", "multimodal", 161070, 107),
    ("netflix", "assoc_rule", 707219, 1784), ("netflix", "mem_item_item", 137818, 454),
    ("netflix", "mem_user_user", 3017960, 3059), ("netflix", "neu_item2users", 887440, 940),
    ("netflix", "neu_user2items", 380389, 1000), ("netflix", "kg_cast", 227224, 488),
    ("netflix", "kg_director", 142241, 488), ("netflix", "attr_genre", 138000, 244),
    ("netflix", "text_logline", 234066, 432), ("netflix", "multimodal", 640184, 488),
]
PAPER_TOKENS = sum(c[2] for c in PAPER_CELLS)  # 23,276,887
PAPER_QUESTIONS = sum(c[3] for c in PAPER_CELLS)
CHAT_PREFIX, TEMPLATE_PREFIX = 20, 30


def arch_config(name: str):
    """The published configurations (config.json of the hub repositories), built in code."""
    from transformers import LlamaConfig, Qwen2Config

    if name == "qwen2-7b":
        return Qwen2Config(vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
                           num_attention_heads=28, num_key_value_heads=4, max_position_embeddings=32768,
                           rope_theta=1e6, rms_norm_eps=1e-6, tie_word_embeddings=False)
    if name == "llama3-8b":
        return LlamaConfig(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                           num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=8192,
                           rope_theta=5e5, rms_norm_eps=1e-5, tie_word_embeddings=False)
    if name == "tiny":
        return Qwen2Config(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                           tie_word_embeddings=False)
    raise SystemExit(f"bench_gpu: unknown --arch {name!r}")


def lrworld_prompts(vocab: int, sample: float, seed: int, scale: float = 1.0) -> list[list[int]]:
    """Token ids shaped like the paper's prompts: per cell, round(sample x questions) (>= 4) prompts of
    the cell's mean length +-15 %, sharing the chat prefix (all) and the template opening (the cell)."""
    chat = rng_for(seed, "bench_gpu", "chat").integers(100, vocab - 100, CHAT_PREFIX).tolist()
    prompts = []
    for dataset, measure, tokens, n in PAPER_CELLS:
        rng = rng_for(seed, "bench_gpu", dataset, measure)
        mean = tokens / n * scale
        opening = rng.integers(100, vocab - 100, TEMPLATE_PREFIX).tolist()
        for _ in range(max(4, round(n * sample))):
            length = max(CHAT_PREFIX + TEMPLATE_PREFIX + 4, int(mean * rng.uniform(0.85, 1.15)))
            body = rng.integers(100, vocab - 100, length - CHAT_PREFIX - TEMPLATE_PREFIX).tolist()
            prompts.append(chat + opening + body)
    return prompts


def flops(model, prompts: list[list[int]]) -> float:
    """2 x decoder-layer parameters per token (the LM head runs on the last position only) plus
    causal attention, 2 x hidden x L^2 per layer and prompt (QK^T and AV over half the square, 2 FLOP
    per multiply-add)."""
    cfg = model.config
    layer_params = sum(p.numel() for p in model.model.layers.parameters())
    tokens = sum(len(p) for p in prompts)
    attn = sum(2 * cfg.num_hidden_layers * cfg.hidden_size * len(p) ** 2 for p in prompts)
    return 2.0 * layer_params * tokens + attn


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def run_hf(model, prompts, device: str, seconds: float, *, budget: int | None = None,
           batch_size: int | None = None) -> dict:
    """Choice scoring as the hf backend does it: its batches (longest-first within a token budget,
    or fixed-size in job order), then the last-position logits and the log-softmax the label
    lookup reads."""
    lengths = [len(p) for p in prompts]
    plan = plan_batches(lengths, max_batch_tokens=budget, batch_size=batch_size)
    pad = 0
    with torch.inference_mode():
        torch.log_softmax(last_token_logits(model, [prompts[i] for i in plan[0]], pad), dim=-1)  # warm-up
        sync(device)
        stats, done = PaddingStats(), []
        t0 = time.perf_counter()
        for rows in plan:
            batch = [prompts[i] for i in rows]
            torch.log_softmax(last_token_logits(model, batch, pad), dim=-1)
            stats.add([len(p) for p in batch])
            done += batch
            if time.perf_counter() - t0 > seconds:
                sync(device)
                break
        sync(device)
        elapsed = time.perf_counter() - t0
    name = f"max_batch_tokens {budget}" if budget else f"batch_size {batch_size} (job order)"
    return {"path": f"hf choice, {name}", "seconds": elapsed, "prompts": done,
            "padding_share": stats.padding_share, "batches": stats.batches}


def run_vllm(config, prompts, seconds: float, max_len: int) -> dict | None:
    """The same prompts through vLLM (dummy weights, token ids in, one token with top-20 logprobs
    out: the openai backend's choice request)."""
    try:
        from vllm import LLM, SamplingParams
        from vllm.inputs import TokensPrompt
    except ImportError:
        print("vLLM is not installed: its row is skipped")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        config.save_pretrained(tmp)
        llm = LLM(model=tmp, load_format="dummy", skip_tokenizer_init=True, dtype="bfloat16",
                  enable_prefix_caching=True, max_model_len=max_len, gpu_memory_utilization=0.85, seed=0)
        params = SamplingParams(max_tokens=1, logprobs=20, temperature=0.0, detokenize=False)
        llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts[:64]], params, use_tqdm=False)  # warm-up
        done = []
        t0 = time.perf_counter()
        for start in range(0, len(prompts), 2048):
            chunk = prompts[start:start + 2048]
            llm.generate([TokensPrompt(prompt_token_ids=p) for p in chunk], params, use_tqdm=False)
            done += chunk
            if time.perf_counter() - t0 > seconds:
                break
        elapsed = time.perf_counter() - t0
    return {"path": "vLLM (prefix caching), max_tokens 1, logprobs 20", "seconds": elapsed, "prompts": done}


def report(row: dict, model, peak_flops: float) -> dict:
    tokens = sum(len(p) for p in row["prompts"])
    n = len(row["prompts"])
    tok_s, q_s = tokens / row["seconds"], n / row["seconds"]
    floor_s = flops(model, row["prompts"]) / peak_flops
    # Full precision in the JSON: a fast run's projection is a minute or two, where rounding to 0.1 min
    # alone moves it by several percent. Only the printed text below rounds.
    out = {"path": row["path"], "questions": n, "tokens": tokens, "seconds": row["seconds"],
           "tokens_per_s": tok_s, "questions_per_s": q_s,
           "projected_minutes_23_3M_tokens": PAPER_TOKENS / tok_s / 60,
           "ratio_to_compute_floor": floor_s / row["seconds"]}
    if "padding_share" in row:
        out["padding_share"] = row["padding_share"]
        out["batches"] = row["batches"]
    print(f"{row['path']}\n  {n} questions, {tokens} tokens in {row['seconds']:.1f} s: {tok_s:,.0f} tokens/s, "
          f"{q_s:,.1f} questions/s"
          + (f", padding {row['padding_share']:.1%} over {row['batches']} batches" if "padding_share" in row else "")
          + f"\n  projected for the paper's {PAPER_TOKENS / 1e6:.1f}M tokens: {PAPER_TOKENS / tok_s / 60:.1f} min; "
          f"compute floor {floor_s:.1f} s, ratio floor/measured {floor_s / row['seconds']:.2f}")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="qwen2-7b", choices=["qwen2-7b", "llama3-8b"])
    ap.add_argument("--tiny", action="store_true", help="a small config on CPU in float32 (seconds; checks the script)")
    ap.add_argument("--sample", type=float, default=0.03, help="share of each cell's questions scored")
    ap.add_argument("--max-batch-tokens", type=int, default=65536)
    ap.add_argument("--fixed-batch-size", type=int, default=8, help="also fixed batches of this size (0: skip)")
    ap.add_argument("--seconds", type=float, default=60.0, help="time cap per path")
    ap.add_argument("--peak-tflops", type=float, default=989.0, help="dense bf16 peak of the GPU")
    ap.add_argument("--no-vllm", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--write-docs", action="store_true", help="write the figures into docs/results.md's block")
    args = ap.parse_args(argv)
    load_before = docs_block.load()

    if args.tiny:
        # float32: CPUs without bf16 matrix units run bf16 tens of times slower
        device, arch, scale, dtype = "cpu", "tiny", 1 / 8, torch.float32
        sample, budget = min(args.sample, 0.002), min(args.max_batch_tokens, 2048)
        torch.set_num_threads(min(2, os.cpu_count() or 1))
    else:
        if not torch.cuda.is_available():
            raise SystemExit("bench_gpu: no CUDA device (run with --tiny to check the script on CPU)")
        device, arch, scale, dtype = "cuda", args.arch, 1.0, torch.bfloat16
        sample, budget = args.sample, args.max_batch_tokens
    from transformers import AutoModelForCausalLM

    config = arch_config(arch)
    t0 = time.perf_counter()
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation="sdpa")
    model.eval()
    built = time.perf_counter() - t0
    prompts = lrworld_prompts(config.vocab_size, sample, args.seed, scale)
    name = torch.cuda.get_device_name(0) if device == "cuda" else "CPU"
    n_params = sum(p.numel() for p in model.parameters())
    lengths = [len(p) for p in prompts]
    print(f"{arch} ({n_params / 1e6:,.1f}M parameters, random {str(dtype).removeprefix('torch.')} weights, "
          f"built in {built:.1f} s) on {name}")
    print(f"{len(prompts)} LRWorld-shaped prompts ({sample:.1%} of each of {len(PAPER_CELLS)} cells), "
          f"{min(lengths)}-{max(lengths)} tokens, mean {np.mean(lengths):.0f}; "
          f"peak {args.peak_tflops:g} TFLOP/s; {2 * sum(p.numel() for p in model.model.layers.parameters()):.2e} "
          f"layer FLOP/token\n")
    peak = args.peak_tflops * 1e12
    rows = [report(run_hf(model, prompts, device, args.seconds, budget=budget), model, peak)]
    if args.fixed_batch_size:
        rows.append(report(run_hf(model, prompts, device, args.seconds, batch_size=args.fixed_batch_size), model, peak))
        print(f"  token budget / fixed batches throughput: "
              f"{rows[0]['tokens_per_s'] / rows[1]['tokens_per_s']:.2f}x")
    if not args.tiny and not args.no_vllm:
        del model
        torch.cuda.empty_cache()
        row = run_vllm(config, prompts, args.seconds, max(lengths) + 16)
        if row is not None:
            with torch.device("meta"):
                shape = AutoModelForCausalLM.from_config(config)  # parameter counts only
            rows.append(report(row, shape, peak))
    if args.json:
        Path(args.json).write_text(json.dumps({"arch": arch, "device": name, "rows": rows}, indent=1))
    if args.write_docs:
        block = "bench_gpu_tiny" if args.tiny else "bench_gpu"
        docs_block.write(DOCS, block, docs_text(arch, name, n_params, rows), docs_block.command(argv), load_before,
                         "bench_gpu")


def docs_text(arch: str, device: str, n_params: int, rows: list[dict]) -> str:
    """The ratio first (token budget over fixed batches, same prompts, one run), then each path."""
    head = f"{arch} ({n_params / 1e6:,.1f}M parameters, random weights) on {device}."
    if len(rows) > 1 and "padding_share" in rows[1]:
        head += (f" Token budget / fixed batches: **{rows[0]['tokens_per_s'] / rows[1]['tokens_per_s']:.2f}x** "
                 "the tokens/s.")
    lines = [head, "", "| path | questions | tokens | s | tokens/s | padding | batches | floor / measured |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['path']} | {r['questions']:,} | {r['tokens']:,} | {r['seconds']:.1f} | {r['tokens_per_s']:,.0f} | "
              + (f"{r['padding_share']:.1%} | {r['batches']} |" if "padding_share" in r else "– | – |")
              + f" {r['ratio_to_compute_floor']:.2f} |" for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
