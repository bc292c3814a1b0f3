"""Provenance records, one per score and one per table.

The chain of a score is written explicitly from the graph's path patterns (score <- responses <-
prompts <- questions <- data <- raw files), by a rule that declares every file of the chain as an
input: Snakemake rebuilds the record whenever any of them changes, the record does not depend on
Snakemake's internal metadata store (which changes format between versions and is absent on a
fresh checkout), and `lrworld verify` needs nothing but the record. Each node names the rule that
made it and the inputs it was made from; the raw files at the end carry, for fetched sources, the
sha256 the fetch manifest recorded as well.
"""

from __future__ import annotations

import os
import re
import time
from functools import partial
from pathlib import Path
from typing import Callable, Iterable

from lrworld.core import io, plugins
from lrworld.core.package_files import is_packaged, packaged
from lrworld.groundtruth import artifacts
from lrworld.models.registry import capabilities
from lrworld.prompts.variants import column_name
from lrworld.provenance import RECORD_FORMAT
from lrworld.provenance.environment import file_entry, git_state, host, redact, utc_iso, versions
from lrworld.core.seeding import SEED_DERIVATION

# Identity keys that are decoding parameters rather than the model's name.
DECODING_KEYS = ("mode", "max_new_tokens", "max_tokens", "temperature", "top_p", "top_logprobs", "dtype",
                 "seed", "system", "system_sha256", "chat_template_sha256")


def config_block(subset: dict) -> dict:
    clean = redact(subset)
    return {"sha256": io.sha256_text(io.dumps_canonical(clean)), "subset": clean}


# How a record hashes a file: io.sha256_file, or a digest store's lookup that re-hashes a file only
# when its (size, mtime, ctime, inode) changed (lrworld/core/digests.py). A (dataset, model,
# measure) job records 4 variants whose chains share the raw files, the data and the code, and so
# do the jobs of a dataset: the plain hash reads every file for every record, a store once per change.
Digest = Callable[[Path], str]


def _node(role: str, path: str, rule: str | None, inputs: Iterable[str] = (), *, digest: Digest = io.sha256_file,
          **extra) -> dict:
    # a packaged template is named relative to the package and hashed from this install's file
    node = {"role": role, **file_entry(packaged(path), digest), "path": str(path), "rule": rule,
            "inputs": [str(i) for i in inputs]}
    node.update({k: v for k, v in extra.items() if v is not None})
    return node


def _gt_inputs(path: str, interactions: str) -> list[str]:
    """What a ground-truth artifact was computed from: the interactions and the artifacts it needs."""
    needs = artifacts.ARTIFACTS[artifacts.name_of(path)].needs
    return [interactions, *(str(Path(path).with_name(Path(artifacts.ARTIFACTS[n].path).name)) for n in needs)]


def score_chain(inp: dict, raw: list[str], metadata_files: list[str], digest: Digest = io.sha256_file) -> list[dict]:
    """The files behind one score, nearest first, ending in the raw dataset files.

    `inp` maps roles to paths: score, score_job, responses, summary, prompts, template, questions,
    questions_report, audit (optional), interactions, items, ingest_report."""
    node = partial(_node, digest=digest)
    data_in = list(raw) + list(metadata_files)
    ground_truth = list(inp.get("ground_truth", []))
    questions_rule = "gt_questions" if ground_truth else "questions"
    nodes = [
        node("score", inp["score"], "score", [inp["responses"]]),
        node("score_job", inp["score_job"], "score", [inp["responses"]], note="start/end/host of the score job"),
        # the score job reads the cell's responses from the cache, then scores them
        node("responses", inp["responses"], "score", [inp["prompts"], inp["summary"]]),
        node("answered", inp["summary"], "answer", [inp["prompts"]],
             note="model identity, asked/cached counts of the model's answer job for the dataset"),
        *(_identity_nodes(inp["identity"], node) if inp.get("identity") else []),
        node("prompts", inp["prompts"], "prompts", [inp["questions"], inp["items"], inp["template"]]),
        node("template", inp["template"], None, note="prompt template (source file)",
             base="package" if is_packaged(inp["template"]) else None),
        node("questions", inp["questions"], questions_rule, [inp["interactions"], inp["items"], *ground_truth],
             note="ground truth: candidates and answer_index per question"),
        node("questions_report", inp["questions_report"], questions_rule, [inp["interactions"], inp["items"]]),
        *([node("audit", inp["audit"], "audit", [inp["questions"], inp["prompts"], inp["interactions"], inp["items"]],
                note="the dataset's benchmark audit the questions and prompts passed (results/audit/)")]
          if inp.get("audit") else []),
        *[node("ground_truth", f, artifacts.rule_of(f), _gt_inputs(f, inp["interactions"]),
               note="ground-truth artifact the answers are computed from") for f in ground_truth],
        node("interactions", inp["interactions"], "ingest", data_in),
        node("items", inp["items"], "ingest", data_in, note="ground truth: item attributes (genres, ...)"),
        node("ingest_report", inp["ingest_report"], "ingest", data_in),
    ]
    raw_nodes = []
    for path in raw:
        if Path(path).name == "manifest.json" and Path(path).parent.parent.name == "raw":
            manifest = io.read_json(path)
            listed = {str(Path(path).parent / name): sha for name, sha in sorted(manifest["files"].items())}
            nodes.append(node("raw_manifest", path, "fetch_raw", list(listed), origin=manifest.get("source")))
            raw_nodes += [node("raw", f, None, expected_sha256=sha, note="raw dataset file (fetched)")
                          for f, sha in listed.items()]
        else:
            raw_nodes.append(node("raw", path, None, note="raw dataset file (local source)"))
    nodes += [node("metadata", f, None, note="metadata join (source file)") for f in metadata_files]
    return nodes + raw_nodes


def _identity_nodes(path: str, node: Callable[..., dict]) -> list[dict]:
    """The model's planned identity file, and each weight/tokenizer file it lists with the sha256
    the answers were asked with (not hashed again here: `lrworld verify` re-hashes them)."""
    ident = io.read_json(path)
    nodes = [node("model_identity", path, "model_identity",
                  note="the digest of the model's weights and tokenizer the answers depend on")]
    folder = ident.get("folder")
    for rel, sha in sorted((ident.get("files_sha256") or {}).items()):
        nodes.append({"role": "model_file", "path": str(Path(folder) / rel), "sha256": sha, "rule": None,
                      "inputs": [], "note": "model weight / tokenizer file (local folder)"})
    return nodes


def resolved_revision(model: str | None, revision: str | None) -> str | None:
    """The commit a hub id + revision resolved to, read from the local hub cache (no network)."""
    if not model or model.startswith("package:") or os.path.exists(model):
        return None
    if revision and re.fullmatch(r"[0-9a-f]{40}", revision):
        return revision
    try:
        from huggingface_hub import constants

        ref = Path(constants.HF_HUB_CACHE) / f"models--{model.replace('/', '--')}" / "refs" / (revision or "main")
        return ref.read_text().strip() if ref.exists() else None
    except Exception:  # noqa: BLE001 (best effort: an absent hub library or cache is not an error)
        return None


def model_block(summary: dict, responses: list[dict]) -> dict:
    ident = dict(summary.get("identity") or {})
    served = sorted({r["served_model"] for r in responses if r.get("served_model")})
    fingerprints = sorted({r["system_fingerprint"] for r in responses if r.get("system_fingerprint")})
    block = {"identity": redact(ident), "served_models": served, "system_fingerprints": fingerprints,
             "asked": summary.get("asked"), "cached": summary.get("cached")}
    if capabilities(ident).hub_model:
        block["resolved_revision"] = resolved_revision(ident.get("model"), ident.get("revision"))
    return block


def decoding_block(identity: dict) -> dict:
    dec = {k: identity[k] for k in DECODING_KEYS if k in identity}
    dec.update(capabilities(identity).decoding)  # what the backend fixes (hf: greedy, or one forward pass)
    return dec


def code_block(rule_code: dict[str, list[str]], root: str, digest: Digest = io.sha256_file,
               plugin_files: dict[str, list[str]] | None = None, used: Iterable[str] = ()) -> dict:
    """{rule: {file (relative to the checkout): sha256}} of every rule of the chain, and each
    installed plugin whose files the chain ran (`plugin_files`) or read (`used`: a template)."""
    modules = {rule: {f: digest(Path(root) / f) for f in files} for rule, files in sorted(rule_code.items())}
    block = {"lrworld_version": versions()["lrworld"] or _package_version(), "git": git_state(root),
             # relative to the working directory: the record holds no path of the machine that built it
             "checkout": os.path.relpath(root), "modules": modules}
    found = plugins_block(plugin_files or {}, used, digest)
    return {**block, "plugins": found} if found else block


def plugins_block(plugin_files: dict[str, list[str]], used: Iterable[str], digest: Digest = io.sha256_file) -> dict:
    """{distribution: its version, folder (relative to the working directory), {file (relative to
    the folder): sha256} and one sha256 over them} of each plugin: which plugin made a number, at
    which version, with which code and templates."""
    files = {name: set(rel) for name, rel in plugin_files.items()}
    for path in used:
        p = Path(path).resolve()
        if (plugin := plugins.plugin_of(p)) is not None:
            files.setdefault(plugin.name, set()).add(p.relative_to(plugin.folder).as_posix())
    out = {}
    for name, rel in sorted(files.items()):
        plugin = plugins.by_name(name)
        hashed = {f: digest(plugin.folder / f) for f in sorted(rel)}
        out[name] = {"version": plugin.version, "folder": os.path.relpath(plugin.folder), "files": hashed,
                     "sha256": io.sha256_text(io.dumps_canonical(hashed))}
    return out


def _package_version() -> str:
    from lrworld import __version__

    return __version__


def score_record(inp: dict, raw: list[str], metadata_files: list[str], config_subset: dict,
                 rule_code: dict[str, list[str]], root: str, wildcards: dict, digest: Digest = io.sha256_file,
                 plugin_files: dict[str, list[str]] | None = None) -> dict:
    score = io.read_json(inp["score"])
    summary = io.read_json(inp["summary"])
    questions = io.read_jsonl(inp["questions"])
    model = model_block(summary, io.read_jsonl(inp["responses"]))
    seeds = {"config_seed": config_subset.get("seed"),
             "questions_seed": sorted({q["seed"] for q in questions if "seed" in q}) or None,
             "questions_seed_derivation": SEED_DERIVATION + "; names: dataset, measure, purpose, question key",
             "model_seed": model["identity"].get("seed")}
    return {
        "format": RECORD_FORMAT,
        "kind": "score",
        **{k: wildcards[k] for k in ("dataset", "model", "measure", "variant")},
        "number": {k: score.get(k) for k in ("value", "primary_metric", "n", "correct", "missed", "missed_rate")},
        "config": config_block(config_subset),
        "code": code_block(rule_code, root, digest, plugin_files, [str(packaged(inp["template"]))]),
        "versions": versions(),
        "model_identity": model,
        "decoding": decoding_block(model["identity"]),
        "seeds": seeds,
        "job": io.read_json(inp["score_job"]),
        "recorded": {"host": host(), "at": utc_iso(time.time())},
        "chain": score_chain(inp, raw, metadata_files, digest),
    }


def table_record(csv: str, md: str, table_job: str, records: list[str], config_subset: dict, root: str,
                 dataset: str) -> dict:
    cells = []
    for path in records:
        rec = io.read_json(path)
        score = rec["chain"][0]
        cells.append({"row": rec["model"], "column": column_name(rec["measure"], rec["variant"]),
                      "value": rec["number"]["value"], "score": score["path"], "score_sha256": score["sha256"],
                      "provenance": path, "provenance_sha256": io.sha256_file(path)})
    return {
        "format": RECORD_FORMAT,
        "kind": "table",
        "dataset": dataset,
        "table": {"csv": file_entry(csv), "md": file_entry(md)},
        "config": config_block(config_subset),
        "code": {"lrworld_version": versions()["lrworld"] or _package_version(), "git": git_state(root)},
        "versions": versions(),
        "job": io.read_json(table_job),
        "cells": sorted(cells, key=lambda c: (c["row"], c["column"])),
    }


def short(sha: str | None) -> str:
    return (sha or "-")[:12]


def table_markdown(table_rec: dict, records: dict[str, dict]) -> str:
    """A human-readable page of a table's provenance, for the Snakemake report."""
    t = table_rec
    git = t["code"]["git"]
    lines = [f"# Provenance of results table `{t['dataset']}`", "",
             f"- table: `{t['table']['csv']['path']}` sha256 `{t['table']['csv']['sha256']}`",
             f"- built by rule `{t['job']['rule']}` on `{t['job']['host']}`, {t['job']['start']} .. {t['job']['end']}",
             f"- code: lrworld {t['code']['lrworld_version']}, git {git.get('commit') or '-'}"
             f"{' (dirty)' if git.get('dirty') else ''}",
             "- versions: " + ", ".join(f"{k} {v}" for k, v in t["versions"].items() if v),
             f"- config sha256 `{t['config']['sha256']}`", "",
             "Trace one cell: `lrworld explain <table> <row> <column>`; re-hash everything: `lrworld verify`.", ""]
    for cell in t["cells"]:
        rec = records[cell["provenance"]]
        ident = rec["model_identity"]["identity"]
        lines += [f"## {cell['row']} / {cell['column']} = {cell['value']:.4f}", "",
                  f"- n {rec['number']['n']}, correct {rec['number']['correct']}, missed {rec['number']['missed']}",
                  "- model: " + ", ".join(f"{k}={v}" for k, v in ident.items() if v is not None),
                  f"- score job on `{rec['job']['host']}`, {rec['job']['start']} .. {rec['job']['end']}",
                  f"- config sha256 `{rec['config']['sha256']}`", "",
                  "| role | file | sha256 | rule |", "|---|---|---|---|"]
        lines += [f"| {n['role']} | `{n['path']}` | `{short(n['sha256'])}` | {n['rule'] or 'source'} |"
                  for n in rec["chain"]]
        lines.append("")
    return "\n".join(lines)
