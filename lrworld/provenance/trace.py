"""Reading provenance back: from one table cell to the raw data (`explain`), the per-question
records behind a number, and re-hashing every chain (`verify`)."""

from __future__ import annotations

import os
from pathlib import Path

from lrworld.core import io
from lrworld.core.package_files import is_packaged, packaged
from lrworld.provenance.record import short


class TraceError(Exception):
    """A table, row or column that has no provenance; the message says what exists."""


def locate(table: str, directory: str | None = None) -> tuple[Path, str]:
    """(workflow directory, dataset) from a table path like results/tables/ml100k.csv, or a dataset name."""
    p = Path(table)
    if p.suffix in (".csv", ".md", ".json"):
        p = p if p.is_absolute() else Path(directory or os.getcwd()) / p
        p = p.resolve()
        if p.parent.name == "tables" and p.parent.parent.name == "results":
            return p.parent.parent.parent, p.stem
        if p.name == "table.json" and p.parent.parent.name == "provenance":
            return p.parents[3], p.parent.name
        raise TraceError(f"{table}: not a results/tables/<dataset>.csv|md file")
    return Path(directory or os.getcwd()).resolve(), table


def resolve(root: Path, path: str) -> Path:
    """A recorded path: relative to the working directory, or to the package (a template: the
    file this install ships, checked by content)."""
    if is_packaged(path):
        return packaged(path)
    p = Path(path)
    return p if p.is_absolute() else root / p


def _read(path: Path, what: str, reader=io.read_json):
    """A provenance file, or one TraceError line naming it and what to do."""
    try:
        return reader(path)
    except FileNotFoundError:
        raise TraceError(f"{path}: the {what} is missing (deleted?); rerun snakemake to rebuild it, "
                         f"or `lrworld verify` to list what changed") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise TraceError(f"{path}: the {what} is not valid JSON ({exc}); rerun snakemake to rebuild it") from None


def table_record_path(root: Path, dataset: str) -> Path:
    return root / "results" / "provenance" / dataset / "table.json"


def load_table_record(root: Path, dataset: str) -> dict:
    path = table_record_path(root, dataset)
    if not path.exists():
        raise TraceError(f"{path}: no provenance record for table {dataset!r} (run snakemake to build it)")
    return _read(path, "table's provenance record")


def _status(root: Path, node: dict) -> dict:
    p = resolve(root, node["path"])
    out = dict(node)
    if not p.exists():
        out.update(current_sha256=None, status="missing")
    else:
        now = io.sha256_file(p)
        out["current_sha256"] = now
        ok = now == node["sha256"] and node.get("expected_sha256") in (None, now)
        out["status"] = "ok" if ok else "changed"
    return out


def find_cell(trec: dict, row: str, column: str) -> dict:
    for cell in trec["cells"]:
        if cell["row"] == row and cell["column"] == column:
            return cell
    rows = sorted({c["row"] for c in trec["cells"]})
    cols = sorted({c["column"] for c in trec["cells"]})
    if row not in rows:
        raise TraceError(f"table {trec['dataset']!r} has no row {row!r}; rows: {', '.join(rows)}")
    raise TraceError(f"table {trec['dataset']!r} has no column {column!r}; columns: {', '.join(cols)}")


def explain(table: str, row: str, column: str, directory: str | None = None, records: bool = False) -> dict:
    root, dataset = locate(table, directory)
    trec = load_table_record(root, dataset)
    cell = find_cell(trec, row, column)
    rec_path = resolve(root, cell["provenance"])
    srec = _read(rec_path, f"provenance record of {row} / {column}")
    head = [
        {"role": "table", **trec["table"]["csv"], "rule": "table", "inputs": [cell["score"]]},
        {"role": "table_md", **trec["table"]["md"], "rule": "table", "inputs": [cell["score"]]},
        {"role": "score_provenance", "path": cell["provenance"], "sha256": cell["provenance_sha256"],
         "rule": "provenance", "inputs": [cell["score"]]},
    ]
    chain = [_status(root, n) for n in head + srec["chain"]]
    out = {"root": str(root), "dataset": dataset, "row": row, "column": column, "value": cell["value"],
           "number": srec["number"], "table_record": str(table_record_path(root, dataset)),
           "score_record": cell["provenance"], "model_identity": srec["model_identity"],
           "decoding": srec["decoding"], "seeds": srec["seeds"], "config": srec["config"],
           "code": srec["code"], "versions": srec["versions"], "job": srec["job"], "chain": chain}
    if records:
        out["records"] = question_records(root, srec)
    return out


def question_records(root: Path, srec: dict) -> list[dict]:
    """Per question: id, candidates, gold, raw answer and parsed answer, as the number counted them."""
    by_role = {n["role"]: n["path"] for n in srec["chain"]}
    prompts = {p["qid"]: p for p in _read(resolve(root, by_role["prompts"]), "prompts file", io.read_jsonl)}
    out = []
    for r in _read(resolve(root, by_role["responses"]), "responses file", io.read_jsonl):
        p = prompts.get(r["qid"], {})
        labels, cands = p.get("labels", []), p.get("candidates", [])
        gold, parsed = r["answer_index"], r.get("parsed")

        def label(i):
            return None if i is None or i >= len(labels) else labels[i]

        out.append({"qid": r["qid"], "candidates": [f"{l}. {c}" for l, c in zip(labels, cands)],
                    "gold": label(gold), "gold_text": cands[gold] if gold < len(cands) else None,
                    "raw_answer": r.get("raw_text"), "parsed": label(parsed),
                    "correct": parsed is not None and parsed == gold})
    return out


def format_explain(res: dict) -> str:
    ident = res["model_identity"]["identity"]
    git = res["code"]["git"]
    n = res["number"]
    lines = [
        f"{res['dataset']} | row {res['row']} | column {res['column']} = {res['value']:.4f}"
        f"  ({n.get('primary_metric')}: {n.get('correct')}/{n.get('n')} correct, {n.get('missed')} missed)",
        "model:    " + ", ".join(f"{k}={v}" for k, v in ident.items() if v is not None),
    ]
    extra = {k: res["model_identity"].get(k) for k in ("resolved_revision", "served_models", "system_fingerprints")}
    if any(extra.values()):
        lines.append("          " + ", ".join(f"{k}={v}" for k, v in extra.items() if v))
    lines += [
        "decoding: " + (", ".join(f"{k}={v}" for k, v in res["decoding"].items()) or "-"),
        f"seeds:    config {res['seeds'].get('config_seed')}, questions {res['seeds'].get('questions_seed')}, "
        f"model {res['seeds'].get('model_seed')}",
        f"config:   sha256 {res['config']['sha256']}",
        f"code:     lrworld {res['code']['lrworld_version']}, git {git.get('commit') or '-'}"
        f"{' (dirty)' if git.get('dirty') else ''}{' ' + git['error'] if git.get('error') else ''}, "
        f"{sum(len(m) for m in res['code']['modules'].values())} modules hashed",
        *[f"plugin:   {name} {p['version']}, sha256 {short(p['sha256'])} over {len(p['files'])} files in {p['folder']}"
          for name, p in res["code"].get("plugins", {}).items()],
        "versions: " + ", ".join(f"{k} {v}" for k, v in res["versions"].items() if v),
        f"job:      rule {res['job']['rule']} on {res['job']['host']}, {res['job']['start']} .. {res['job']['end']}",
        "",
        "chain (file, sha256, rule that made it; a source file has no rule):",
    ]
    width = max(len(c["role"]) for c in res["chain"])
    for c in res["chain"]:
        status = c["status"] if c["status"] == "ok" else f"{c['status'].upper()} (now {short(c.get('current_sha256'))})"
        made = f"rule {c['rule']}" if c["rule"] else ("fetched, in manifest" if c.get("expected_sha256") else "source file")
        lines.append(f"  {c['role']:<{width}}  {c['path']}")
        lines.append(f"  {'':<{width}}    sha256 {c['sha256']}  {made}  {status}")
        if c.get("origin"):
            origin = c["origin"].get("wheel") or c["origin"]
            lines.append(f"  {'':<{width}}    origin " + ", ".join(f"{k}={v}" for k, v in origin.items()))
    if "records" in res:
        lines += ["", f"records ({len(res['records'])}): qid | gold | parsed | raw answer | candidates"]
        for r in res["records"]:
            raw = (r["raw_answer"] or "").replace("\n", " ")
            lines.append(f"  {r['qid']} | {r['gold']} {r['gold_text']} | {r['parsed']} | {raw[:60]!r} | "
                         + "; ".join(r["candidates"]))
    return "\n".join(lines)


def verify(directory: str | None = None, tables: list[str] | None = None) -> dict:
    """Re-hash every file behind every number of the given tables (default: all of them)."""
    if tables:
        located = [locate(t, directory) for t in tables]
    else:
        root = Path(directory or os.getcwd()).resolve()
        located = [(root, p.parent.name) for p in sorted((root / "results" / "provenance").glob("*/table.json"))]
        if not located:
            raise TraceError(f"{root}: no results/provenance/*/table.json to verify")
    checked: dict[str, dict] = {}

    def check(root: Path, node: dict, used_by: str, kind: str = "file") -> None:
        key = str(resolve(root, node["path"]))
        if key not in checked:
            st = _status(root, node)
            checked[key] = {"path": node["path"], "role": node.get("role"), "rule": node.get("rule"), "kind": kind,
                            "recorded_sha256": node["sha256"], "expected_sha256": node.get("expected_sha256"),
                            "current_sha256": st["current_sha256"], "status": st["status"], "used_by": []}
        if used_by not in checked[key]["used_by"]:
            checked[key]["used_by"].append(used_by)

    for root, dataset in located:
        trec = load_table_record(root, dataset)
        for ext in ("csv", "md"):
            check(root, {"role": "table", "rule": "table", **trec["table"][ext]}, f"{dataset} table")
        for cell in trec["cells"]:
            label = f"{dataset}: {cell['row']} / {cell['column']}"
            check(root, {"role": "score_provenance", "rule": "provenance", "path": cell["provenance"],
                         "sha256": cell["provenance_sha256"]}, label)
            check(root, {"role": "score", "rule": "score", "path": cell["score"], "sha256": cell["score_sha256"]}, label)
            rec_path = resolve(root, cell["provenance"])
            if not rec_path.exists():
                continue
            srec = _read(rec_path, f"provenance record of {label}")
            for node in srec["chain"]:
                check(root, node, label)
            # code paths are relative to the checkout the record was built from
            checkout = resolve(root, srec["code"].get("checkout", "."))
            for rule, modules in srec["code"]["modules"].items():
                for path, sha in modules.items():
                    check(checkout, {"role": f"code ({rule})", "rule": None, "path": path, "sha256": sha}, label, "code")
            # an installed plugin's files, relative to its folder: a change names the plugin
            for name, plugin in srec["code"].get("plugins", {}).items():
                folder = resolve(root, plugin["folder"])
                for path, sha in plugin["files"].items():
                    check(folder, {"role": f"plugin {name} {plugin['version']}", "rule": None, "path": path,
                                   "sha256": sha}, label, "plugin")
    problems = [c for c in checked.values() if c["status"] != "ok"]
    return {"checked": len(checked), "problems": problems, "ok": not problems}


def format_verify(res: dict) -> str:
    if res["ok"]:
        return f"verify: OK, {res['checked']} files match the hashes the numbers were built from"
    lines = [f"verify: {len(res['problems'])} of {res['checked']} files differ from what the numbers were built from"]
    for p in res["problems"]:
        if p["status"] == "missing":
            what = "missing"
        elif p["current_sha256"] != p["recorded_sha256"]:
            what = f"recorded sha256 {short(p['recorded_sha256'])}, now {short(p['current_sha256'])}"
        else:
            what = f"fetch manifest says {short(p['expected_sha256'])}, now {short(p['current_sha256'])}"
        used = ", ".join(p["used_by"][:6]) + (f" (+{len(p['used_by']) - 6} more)" if len(p["used_by"]) > 6 else "")
        lines.append(f"{p['status'].upper()} {p['path']} ({p['role']}, rule {p['rule'] or 'source'}): {what}; behind {used}")
    return "\n".join(lines)
