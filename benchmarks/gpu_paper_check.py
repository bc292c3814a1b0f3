"""One of the LRWorld paper's open models on one measure at the paper's question count, through the
graph (ingest -> questions -> prompts -> answer -> score -> table), printing our figure with its
95% interval beside the paper's (results/tables/<dataset>.paper.csv) and the RANDOM row beside its
expected value.

    python benchmarks/gpu_paper_check.py                 # Qwen2-7B-Instruct, ML-25M <movie, genre>, 297 questions
    python benchmarks/gpu_paper_check.py --model llama3-8b-instruct --measure kg_director
    python benchmarks/gpu_paper_check.py --smoke         # SmolLM2-135M on ML-100K, 20 questions, on CPU
                                                         # (no paper row: RANDOM's is the one compared)

The model is a config.yaml entry with a `paper_name` (its weights from the hub, or the hub cache);
the dataset one of config/paper.yaml's (its download on first use), restricted to `--measure`. The
paper's count is its Table 12-14 count for that measure (lrworld/paper/question_counts.tsv);
`--n` asks fewer. `--smoke` runs the same path on the checkout's own data and model: ML-100K from
../shared/data (compared with the paper's MovieLens table) and SmolLM2-135M in choice mode.
The work folder (default a fresh temporary one) keeps the graph's files and the response cache;
give `--workdir` to keep them, or to resume a run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lrworld.paper import figures as paper  # noqa: E402

SHARED_DATA = Path(os.environ.get("LRWORLD_SHARED_DATA", ROOT.parent / "shared" / "data"))


def config(args) -> dict:
    base = yaml.safe_load((ROOT / "config.yaml").read_text())
    if args.smoke:
        dataset = {"domain": "movie", "format": "ml-100k", "paper_table": "movielens",
                   "source": {"path": str(SHARED_DATA / "movielens-100k/raw")}}
    else:
        dataset = yaml.safe_load((ROOT / "config/paper.yaml").read_text())["datasets"][args.dataset]
    # one measure, zero-shot only (its Tables 2, 3, 22 figure): not the dataset's extra_variants
    dataset = {**{k: v for k, v in dataset.items() if k != "extra_variants"}, "measures": [args.measure]}
    model = {**base["models"][args.model], "enabled": True}
    if args.mode:
        model["mode"] = args.mode
    return {"seed": base["seed"], "cache_dir": "cache", "docs_snippets": False,
            "questions": {**base["questions"], "per_measure": args.n},
            "variants": ["zero_shot"], "analysis": {"enabled": False},
            "datasets": {args.dataset: dataset},
            "models": {"random": base["models"]["random"], args.model: model}}


def paper_count(args) -> int:
    cfg = {"domain": "movie", "paper_table": "movielens"} if args.smoke else \
        yaml.safe_load((ROOT / "config/paper.yaml").read_text())["datasets"][args.dataset]
    from lrworld.data.paper_dataset import paper_dataset  # the dataset's format names its paper table

    return paper.question_counts()[paper_dataset(cfg)][args.measure]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="a config.yaml model entry with a paper_name (default qwen2-7b-instruct; "
                                    "--smoke: smollm2-135m)")
    ap.add_argument("--dataset", help="a config/paper.yaml dataset (default ml25m; --smoke: ml100k)")
    ap.add_argument("--measure", default="attr_genre")
    ap.add_argument("--n", type=int, help="questions (default: the paper's count for the measure; --smoke: 20)")
    ap.add_argument("--mode", choices=["generate", "choice"], help="override the entry's mode")
    ap.add_argument("--smoke", action="store_true", help="SmolLM2-135M on ML-100K on CPU: checks the script")
    ap.add_argument("--workdir", type=Path, help="the graph's folder (default: a new temporary one)")
    ap.add_argument("--cores", type=int, default=max(1, min(8, os.cpu_count() or 1)))
    args = ap.parse_args(argv)
    args.model = args.model or ("smollm2-135m" if args.smoke else "qwen2-7b-instruct")
    args.dataset = args.dataset or ("ml100k" if args.smoke else "ml25m")
    args.n = args.n or (20 if args.smoke else paper_count(args))
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gpu_paper_check-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "config.yaml").write_text(yaml.safe_dump(config(args), sort_keys=False))
    target = f"results/tables/{args.dataset}.paper.csv"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(work),
                           target, "--cores", str(args.cores), "--resources", "gpu=1"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stdout[-4000:] + proc.stderr[-4000:], file=sys.stderr)
        print(f"gpu_paper_check: the graph failed after {seconds:.0f} s (work folder {work})", file=sys.stderr)
        return 1
    comp = pd.read_csv(work / target).set_index("model")
    table = pd.read_csv(work / f"results/tables/{args.dataset}.csv").set_index("model")
    m = args.measure
    print(f"{args.model} on {args.dataset} / {m}: {args.n} questions asked (the paper's count: {paper_count(args)}), "
          f"{seconds:.0f} s through the graph, work folder {work}")
    for model in ("random", args.model):
        r = table.loc[model]
        line = f"  {model:<24} ours {r[m]:.4f} [{r[m + '_ci_low']:.4f}, {r[m + '_ci_high']:.4f}] n={int(r[m + '_n'])}"
        if model in comp.index:
            p = comp.loc[model]
            line += (f"   paper ({p.paper_name}, Table {p.paper_table}) {p.paper:.4f} over {p.paper_n} questions, "
                     f"diff {p['diff']:+.4f}, {'inside' if p.inside else 'outside'} our 95% interval")
        else:
            line += "   (no paper row: the entry has no paper_name)"
        print(line)
    return 0 if "random" in comp.index else 1

if __name__ == "__main__":
    sys.exit(main())
