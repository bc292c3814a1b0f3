"""`lrworld pack DATASET OUT`: a self-contained release of one built dataset (docs/release.md).

OUT holds the question files, the prompt files per variant, what the audit reads (the ingested
interactions, items, users and ingest report) and the audit's own result, each at the path
lrworld/release/layout.py gives it, plus `release.json`: the lrworld version, the config subset
that built the questions, every file's sha256, the audit result and licence notes per source."""

from __future__ import annotations

import shutil
from pathlib import Path

from lrworld.core import io
from lrworld.provenance.environment import versions
from lrworld.release import layout, licences


class ReleaseError(Exception):
    """One line naming the file or key that stops a pack, a verify or a benchmark source."""


def _built(root: Path, dataset: str) -> tuple[dict, list[str], list[str]]:
    """(config subset, measures, variants) of a dataset's table record: what the build planned."""
    rec_path = root / f"results/provenance/{dataset}/table.json"
    if not rec_path.exists():
        raise ReleaseError(f"{rec_path}: no table record for dataset {dataset!r} (build it with snakemake first)")
    subset = dict(io.read_json(rec_path)["config"]["subset"])
    subset.pop("models", None)  # which models were scored is not part of the benchmark
    entry = subset["dataset"][dataset]
    return subset, list(entry["measures"]), list(subset["variants"])


def pack(root: str | Path, dataset: str, out: str | Path) -> dict:
    root, out = Path(root), Path(out)
    subset, measures, variants = _built(root, dataset)
    pairs = layout.pairs(dataset, measures, variants)
    missing = [b for _, b in pairs if not (root / b).exists()]
    if missing:
        raise ReleaseError(f"{root / missing[0]}: missing ({len(missing)} release files are; build {dataset!r} first)")
    audit = io.read_json(root / f"results/audit/{dataset}.json")
    if not audit.get("passed"):
        raise ReleaseError(f"{root}/results/audit/{dataset}.json: the audit did not pass; a release must")
    if out.exists() and any(out.iterdir()):
        raise ReleaseError(f"{out}: not empty (a release is written into a new folder)")
    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    files = {}
    for rel, built in pairs:
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / built, tmp / rel)
        files[rel] = io.sha256_file(tmp / rel)
    entry = subset["dataset"][dataset]
    manifest = {
        "format": layout.FORMAT, "dataset": dataset, "domain": entry["domain"], "source_format": entry["format"],
        "lrworld_version": versions()["lrworld"], "measures": measures, "variants": variants,
        "config": subset, "config_sha256": io.sha256_text(io.dumps_canonical(subset)),
        "audit": {"passed": audit["passed"], "violations": audit["violations"], "checked": audit.get("checked")},
        "licences": licences.notes(entry), "files": dict(sorted(files.items())),
    }
    from lrworld.release import interop  # Parquet tables, dataset card, lm-eval tasks

    extra = interop.write(tmp, manifest)
    manifest["files"].update({rel: io.sha256_file(tmp / rel) for rel in extra})
    manifest["files"] = dict(sorted(manifest["files"].items()))
    io.write_json(tmp / layout.MANIFEST, manifest)
    if out.exists():
        out.rmdir()
    tmp.rename(out)
    return manifest


def read_manifest(folder: str | Path, what: str = "release") -> dict:
    path = Path(folder) / layout.MANIFEST
    if not path.exists():
        raise ReleaseError(f"{path}: not found ({what} is not an lrworld release folder)")
    man = io.read_json(path)
    if man.get("format") != layout.FORMAT:
        raise ReleaseError(f"{path}: format {man.get('format')!r}, expected {layout.FORMAT!r}")
    return man


def verify(folder: str | Path) -> dict:
    """Re-hash every file the manifest lists; also name files the manifest does not list."""
    folder = Path(folder)
    man = read_manifest(folder)
    problems = []
    for rel, sha in man["files"].items():
        p = folder / rel
        if not p.exists():
            problems.append({"path": rel, "status": "missing"})
        elif io.sha256_file(p) != sha:
            problems.append({"path": rel, "status": "changed"})
    listed = set(man["files"]) | {layout.MANIFEST}
    problems += [{"path": p.relative_to(folder).as_posix(), "status": "unlisted"}
                 for p in sorted(folder.rglob("*")) if p.is_file() and p.relative_to(folder).as_posix() not in listed]
    return {"release": str(folder), "checked": len(man["files"]), "problems": problems, "ok": not problems}


def format_verify(res: dict) -> str:
    if res["ok"]:
        return f"verify: OK, release {res['release']}: {res['checked']} files match release.json"
    return "\n".join([f"verify: {len(res['problems'])} problems in release {res['release']}"] +
                     [f"{p['status'].upper()} {p['path']}" for p in res["problems"]])
