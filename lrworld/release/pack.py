"""`lrworld pack DATASET OUT`: a self-contained release of one built dataset (docs/release.md).

OUT holds the question files, the prompt files per variant, what the audit reads (the ingested
interactions, items, users and ingest report) and the audit's own result, each at the path
lrworld/release/layout.py gives it, plus `release.json`: the lrworld version, the config subset
that built the questions, every file's sha256, the audit result and licence notes per source."""

from __future__ import annotations

import re
import shutil
from pathlib import Path, PurePosixPath

from lrworld.audit import validity
from lrworld.core import io
from lrworld.provenance import code_version
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
    pairs = layout.pairs(dataset, measures, variants, subset["dataset"][dataset].get("extra_variants"))
    missing = [b for _, b in pairs if not (root / b).exists()]
    if missing:
        raise ReleaseError(f"{root / missing[0]}: missing ({len(missing)} release files are; build {dataset!r} first)")
    audit = io.read_json(root / f"results/audit/{dataset}.json")
    if not audit.get("passed"):
        raise ReleaseError(f"{root}/results/audit/{dataset}.json: the audit did not pass; a release must")
    tmp = _check_out(out)
    _check_build(root, dataset)
    tmp.mkdir(parents=True)
    (tmp / PARTIAL_MARK).touch()
    files = {}
    for rel, built in pairs:
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / built, tmp / rel)
        files[rel] = io.sha256_file(tmp / rel)
    entry = subset["dataset"][dataset]
    manifest = {
        "format": layout.FORMAT, "dataset": dataset, "domain": entry["domain"], "source_format": entry["format"],
        "lrworld_version": versions()["lrworld"], "code": code_version.code_version(), "measures": measures, "variants": variants,
        "config": subset, "config_sha256": io.sha256_text(io.dumps_canonical(subset)),
        "audit": {"passed": audit["passed"], "violations": audit["violations"], "checked": audit.get("checked"),
                  # measures a knowledge-free answerer passes, and those not answerable from the data
                  # (lrworld/audit/validity.py)
                  "shortcut_findings": validity.found(audit), "not_answerable": validity.unanswerable(audit)},
        "licences": licences.notes(entry), "files": dict(sorted(files.items())),
    }
    from lrworld.release import interop  # Parquet tables, dataset card, lm-eval tasks

    extra = interop.write(tmp, manifest)
    manifest["files"].update({rel: io.sha256_file(tmp / rel) for rel in extra})
    manifest["files"] = dict(sorted(manifest["files"].items()))
    io.write_json(tmp / layout.MANIFEST, manifest)
    (tmp / PARTIAL_MARK).unlink()
    if out.exists():
        out.rmdir()
    tmp.rename(out)
    return manifest


# In OUT.partial while pack writes it: a leftover of a failed pack is this pack's to delete;
# a folder without it is the user's, and is left alone.
PARTIAL_MARK = ".lrworld-pack-partial"


def _check_out(out: Path) -> Path:
    """OUT must be a new or empty folder; its working folder OUT.partial, if there, must be a
    failed pack's own (pack deletes nothing it did not create). The working folder."""
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out}: exists and is not a folder; give a new folder as OUT")
    if out.is_dir() and any(out.iterdir()):
        raise ReleaseError(f"{out}: not empty (a release is written into a new folder)")
    tmp = out.with_name(out.name + ".partial")
    if tmp.is_dir() and not tmp.is_symlink() and (tmp / PARTIAL_MARK).is_file():
        shutil.rmtree(tmp)  # a failed pack's leftover
    elif tmp.exists() or tmp.is_symlink():
        raise ReleaseError(f"{tmp}: already exists and was not written by lrworld pack (pack writes the release "
                           "there first and deletes nothing it did not create); move it away or give another OUT")
    return tmp


def _check_build(root: Path, dataset: str) -> None:
    """Re-hash what the dataset's numbers were built from, as `lrworld verify` does: a release of
    a build whose prompts or questions changed since would carry `audit: passed` over files the
    audit never saw."""
    from lrworld.provenance import trace

    try:
        res = trace.verify(str(root), [dataset])
    except trace.TraceError as exc:
        raise ReleaseError(f"{root}: the build of {dataset!r} cannot be verified ({exc}); rebuild it with "
                           "snakemake, then pack") from None
    if not res["ok"]:
        first = res["problems"][0]
        raise ReleaseError(f"{root / first['path']}: {first['status']} since the build of {dataset!r} "
                           f"({len(res['problems'])} files are; `lrworld verify -d {root}` lists them); rerun "
                           "snakemake, then pack")


def read_manifest(folder: str | Path, what: str = "release") -> dict:
    path = Path(folder) / layout.MANIFEST
    if not path.exists():
        raise ReleaseError(f"{path}: not found ({what} is not an lrworld release folder)")
    try:
        man = io.read_json(path)
    except io.NotAFileError as exc:
        raise ReleaseError(str(exc)) from None
    if man.get("format") != layout.FORMAT:
        raise ReleaseError(f"{path}: format {man.get('format')!r}, expected {layout.FORMAT!r}")
    files = man.get("files")
    if not isinstance(files, dict):
        raise ReleaseError(f"{path}: 'files' is not a table of path: sha256")
    for rel in files:
        why = _unsafe(rel)
        if why:
            raise ReleaseError(f"{path}: files entry {rel!r} {why}; a release names only relative paths inside "
                               "its folder (not an lrworld pack manifest)")
    return man


def _unsafe(rel) -> str | None:
    """Why a manifest's path may not be read, or None: it must stay inside the release folder."""
    if not isinstance(rel, str) or not rel:
        return "is not a path"
    p = PurePosixPath(rel)
    if p.is_absolute() or "\\" in rel or re.match(r"[A-Za-z]:", rel):
        return "is an absolute path"
    if any(part in ("..", ".") for part in rel.split("/")) or "//" in rel or "\0" in rel:
        return "leads outside the release ('..', '.' or an empty part)"
    return None


def member_problem(folder: Path, rel: str) -> str | None:
    """Why a release path may not be read ("missing", "a FIFO", "a symbolic link", "outside the
    release", ...), or None when it is a plain file inside the folder."""
    p = Path(folder) / rel
    what = io.not_a_file(p, follow_links=False)
    if what:
        return what
    # a folder on the way may be a link out of the release
    return None if p.resolve().is_relative_to(Path(folder).resolve()) else "outside the release"


def release_file(folder: Path, rel: str) -> Path | None:
    """The release path as a file to read, or None when it is not a plain file inside the folder
    (missing, a link, a device, a FIFO): nothing outside the release is ever opened."""
    return None if member_problem(folder, rel) else Path(folder) / rel


def verify(folder: str | Path) -> dict:
    """Re-hash every file the manifest lists; also name files the manifest does not list."""
    folder = Path(folder)
    man = read_manifest(folder)
    problems = []
    for rel, sha in man["files"].items():
        why = member_problem(folder, rel)
        if why:
            problems.append({"path": rel, "status": "missing" if why == "missing" else "not_a_file"})
        elif io.sha256_file(folder / rel) != sha:
            problems.append({"path": rel, "status": "changed"})
    listed = set(man["files"]) | {layout.MANIFEST}
    problems += [{"path": p.relative_to(folder).as_posix(), "status": "unlisted"}
                 for p in sorted(folder.rglob("*")) if (p.is_file() or p.is_symlink()) and p.relative_to(folder).as_posix() not in listed]
    return {"release": str(folder), "checked": len(man["files"]), "problems": problems, "ok": not problems}


def format_verify(res: dict) -> str:
    if res["ok"]:
        return f"verify: OK, release {res['release']}: {res['checked']} files match release.json"
    return "\n".join([f"verify: {len(res['problems'])} problems in release {res['release']}"] +
                     [f"{p['status'].upper()} {p['path']}" for p in res["problems"]])
