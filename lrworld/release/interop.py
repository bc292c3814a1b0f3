"""The release in the tools researchers already use: each measure's prompts as a
Parquet table (one row per question and variant) with a dataset card, README.md, whose YAML
header names the files (`datasets.load_dataset("parquet", data_files=...)` or by the card's
configs), and an lm-evaluation-harness task per multiple-choice measure: the prompt as the
context, the option labels as the choices, the gold label's index as the target."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from lrworld.core import io

PARQUET = "parquet/{measure}.parquet"
LM_EVAL = "lm_eval/lrworld_{dataset}_{measure}.yaml"
COLUMNS = ["qid", "variant", "prompt", "labels", "candidates", "answer_index", "prompt_sha256"]


def tables(folder: Path, manifest: dict) -> dict[str, pd.DataFrame]:
    """{measure: its prompts of every variant}, in the order of the release's prompt files."""
    out = {}
    for m in manifest["measures"]:
        rows = [r for v in manifest["variants"] for r in io.read_jsonl(folder / f"prompts/{m}/{v}.jsonl")]
        out[m] = pd.DataFrame([{c: r.get(c) for c in COLUMNS} for r in rows], columns=COLUMNS)
    return out


def lm_eval_task(dataset: str, measure: str, variant: str) -> dict:
    """A `multiple_choice` task over the measure's Parquet table, one variant's rows. The prompt
    ends in "Answer:\\n", so the label follows it with no delimiter, as lrworld's choice mode
    scores the label's first token right after the (chat-formatted) prompt."""
    return {
        "task": f"lrworld_{dataset}_{measure}" + ("" if variant == "zero_shot" else f"_{variant}"),
        "dataset_path": "parquet",
        # relative to where lm_eval runs: the release folder (docs/release.md)
        "dataset_kwargs": {"data_files": {"test": PARQUET.format(measure=measure)}},
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": "{{prompt}}",
        "doc_to_choice": "{{labels}}",
        "doc_to_target": "{{answer_index}}",
        "target_delimiter": "",
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 1, "lrworld_variant": variant},
    }


def card(manifest: dict, measures: list[str]) -> str:
    header = {"configs": [{"config_name": m, "data_files": [{"split": "test", "path": PARQUET.format(measure=m)}]}
                          for m in measures],
              "license": "other", "task_categories": ["multiple-choice"], "pretty_name": f"LRWorld {manifest['dataset']}"}
    lines = ["---", yaml.safe_dump(header, sort_keys=False).strip(), "---", "",
             f"# LRWorld benchmark release: {manifest['dataset']} ({manifest['domain']})", "",
             f"Written by `lrworld pack` (lrworld {manifest['lrworld_version']}); `release.json` lists every "
             "file's sha256, the config subset and the audit result "
             f"(passed: {manifest['audit']['passed']}, violations: {manifest['audit']['violations']}).", "",
             "One Parquet table per measure, one row per (question, prompt variant): columns "
             + ", ".join(f"`{c}`" for c in COLUMNS) + ". Variants: " + ", ".join(manifest["variants"]) + ".", "",
             "```python", "from datasets import load_dataset",
             f'ds = load_dataset("parquet", data_files="{PARQUET.format(measure=measures[0])}", split="train")', "```",
             "", "lm-evaluation-harness: `lm_eval --include_path lm_eval --tasks "
             f"lrworld_{manifest['dataset']}_{measures[0]} ...` (one task per multiple-choice measure and variant).",
             "", "## Licence notes", ""]
    lines += [f"- {src}: {note}" for src, note in manifest["licences"].items()]
    return "\n".join(lines) + "\n"


def write(folder: Path, manifest: dict) -> list[str]:
    """Write the Parquet tables, the card and the lm-eval tasks; their release paths."""
    written = []
    by_measure = tables(folder, manifest)
    for m, df in by_measure.items():
        path = folder / PARQUET.format(measure=m)
        path.parent.mkdir(parents=True, exist_ok=True)
        df.to_parquet(path, index=False)
        written.append(PARQUET.format(measure=m))
    (folder / "lm_eval").mkdir(exist_ok=True)
    for m, df in by_measure.items():
        if not all(len(labels) == 4 for labels in df["labels"]):  # HitRate@10 lists are not MCQ
            continue
        for v in manifest["variants"]:
            task = lm_eval_task(manifest["dataset"], m, v)
            text = yaml.safe_dump(task, sort_keys=False)
            # one variant's rows of the shared table: lm-eval's `!function` tag (not plain YAML)
            text += f"process_docs: !function utils.only_{v}\n"
            rel = f"lm_eval/{task['task']}.yaml"
            (folder / rel).write_text(text, encoding="utf-8")
            written.append(rel)
    if any(p.startswith("lm_eval/") for p in written):
        utils = ["# lm-eval process_docs hooks: one prompt variant's rows of a measure's table", ""]
        utils += [f"def only_{v}(docs):\n    return docs.filter(lambda d: d['variant'] == {v!r})\n"
                  for v in manifest["variants"]]
        (folder / "lm_eval/utils.py").write_text("\n".join(utils), encoding="utf-8")
        written.append("lm_eval/utils.py")
    (folder / "README.md").write_text(card(manifest, list(by_measure)), encoding="utf-8")
    written.append("README.md")
    return written
