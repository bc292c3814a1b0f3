"""Shortcut answerers on the default run's measures under both constructions: the paper's
(`questions.distractors: uniform`, no gold-share cap) and the debiased one (config/debiased.yaml:
`matched`, `max_gold_share`). Each setting is a real Snakemake run up to the audit, whose shortcut
section (lrworld/audit/shortcuts.py) gives every rule's score and Wilson interval per measure. By
default both run in one new folder on ML-100K (../shared/data/movielens-100k/raw, the data the
default run reads from the recbole wheel); the second reuses the first's NeuMF trainings. With
`--workdir .` they run in a checkout over its config.yaml's datasets (`--configfile`, so its
config.yaml and docs/generated/ stay as they are), reusing what its default run built.

    python benchmarks/bench_shortcuts.py [--per-measure 50] [--workdir DIR] [--write-docs]

`--write-docs` writes the table into docs/audit.md's generated block (benchmarks/docs_block.py)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import docs_block  # noqa: E402

MEASURES = ["assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items", "attr_genre"]
_DEBIASED = yaml.safe_load((ROOT / "config/debiased.yaml").read_text())
# each setting's questions and ground-truth sections: the paper's construction, and the valid one
SETTINGS = {"paper": ({"distractors": "uniform", "max_gold_share": None, "validity": {"filter": False}},
                      {"neural": {"gold": "cosine"}}),
            "debiased": (_DEBIASED["questions"], _DEBIASED["groundtruth"])}
DOCS = ROOT / "docs/audit.md"


def config(path: Path, per_measure: int, setting: tuple[dict, dict], data: Path | None, neumf: dict | None = None) -> Path:
    """The run's config file (`data`: ML-100K's own folder; None: the workdir's config.yaml's datasets)."""
    models = yaml.safe_load((ROOT / "config.yaml").read_text())["models"]
    questions, groundtruth = setting
    cfg = {"docs_snippets": False, "analysis": {"enabled": False},
           "questions": {"per_measure": per_measure, **questions}, "groundtruth": dict(groundtruth),
           "models": {k: v for k, v in models.items() if v["backend"] in ("random", "shortcut")}}
    if neumf:  # fewer or shorter NeuMF trainings: the options' draw is the subject, not NeuMF
        cfg["groundtruth"]["neumf"] = neumf
    if data is not None:
        cfg.update({"seed": 2024, "cache_dir": str(path.parent / "cache"),
                    "datasets": {"ml100k": {"domain": "movie", "format": "ml-100k", "source": {"path": str(data)},
                                            "measures": MEASURES}}})
    path.write_text(yaml.safe_dump(cfg))
    return path


def audit(workdir: Path, cfg: Path) -> dict:
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
                           "--configfile", str(cfg), "--cores", "2", "results/audit/ml100k.json"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode:
        sys.exit(proc.stdout[-2000:] + proc.stderr[-2000:])
    report = json.loads((workdir / "results/audit/ml100k.json").read_text())
    questions = {m: json.loads((workdir / f"results/questions/ml100k/{m}.report.json").read_text()) for m in MEASURES}
    return {"shortcuts": report["shortcuts"]["measures"], "questions": questions,
            "validity": report["validity"]["measures"]}


def table(results: dict[str, dict]) -> str:
    names = sorted(next(iter(next(iter(results.values()))["shortcuts"].values()))["shortcuts"])
    lines = ["| measure | construction | questions | chance | " + " | ".join(names)
             + " | learned | positive control | largest gold share |",
             "|---|---|---:|---:|" + "---:|" * len(names) + "---:|---:|---:|"]
    for m in MEASURES:
        for setting, res in results.items():
            r = res["shortcuts"][m]
            s = r["shortcuts"]
            chance = next(iter(s.values()))["chance"]
            cells = [f"{s[n]['score']:.2f} [{s[n]['ci_low']:.2f}, {s[n]['ci_high']:.2f}]" + (" !" if s[n]["above_chance"]
                                                                                              else "") for n in names]
            asked = res["questions"][m]
            v = res["validity"][m]
            lines.append(f"| {m} | {setting} | {asked['questions']} of {asked['requested']} | {chance:.2f} | "
                         + " | ".join(cells) + f" | {_interval(v['learned'], v['learned']['above_chance'], '!')} | "
                         f"{_interval(v['positive'], not v['answerable'], 'not answerable')} | "
                         f"{r['golds']['largest_share']:.2f} |")
    return "\n".join(lines) + ("\n\n`!`: the 95% Wilson interval lies above chance. Learned: the learned knowledge-free "
                               "answerer, cross-validated by question; positive control: an answerer with the knowledge "
                               "(docs/audit.md).\n")


def _interval(r: dict | None, marked: bool, mark: str) -> str:
    if not r:
        return ""
    return f"{r['score']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]" + (f" {mark}" if marked else "")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-measure", type=int, default=50)
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("LRWORLD_SHARED_DATA", ROOT.parent / "shared/data"))
                    / "movielens-100k/raw")
    ap.add_argument("--workdir", type=Path, help="a checkout whose config.yaml's ml100k is used (default: a new "
                                                 "folder on --data)")
    ap.add_argument("--neumf-seeds", type=int, help="NeuMF trainings (default: config.yaml's)")
    ap.add_argument("--neumf-epochs", type=int, help="epochs per NeuMF training (default: config.yaml's)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args(argv)
    neumf = {k: v for k, v in (("seeds", args.neumf_seeds), ("epochs", args.neumf_epochs)) if v is not None}
    load_before = docs_block.load()
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench_shortcuts_") as tmp:
        work = args.workdir.resolve() if args.workdir else Path(tmp)
        if not args.workdir:
            shutil.copy(ROOT / "config.yaml", work / "config.yaml")  # the Snakefile's configfile; ours replaces its datasets
        for setting, questions in SETTINGS.items():
            cfg = config(Path(tmp) / f"{setting}.yaml", args.per_measure, questions,
                         None if args.workdir else args.data, neumf)
            results[setting] = audit(work, cfg)
    body = table(results)
    print(body)
    if args.write_docs:
        docs_block.write(DOCS, "bench_shortcuts", body, docs_block.command(argv), load_before)


if __name__ == "__main__":
    main()
