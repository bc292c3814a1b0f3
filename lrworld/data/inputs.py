"""What the data rules declare: the raw and metadata files each ingest reads (every one an input,
so a changed file re-runs it) and what each fetch downloads. `rules/common.smk` and the scripts
call these; they take a dataset's config block with the schema's defaults filled in."""

from __future__ import annotations

import json
from pathlib import Path

from lrworld.core.io import NotAFileError, not_a_file
from lrworld.core.schema import ConfigError
from lrworld.data.formats import FORMATS
from lrworld.data.joins import for_format, metadata_keys

MANIFEST = "results/raw/{dataset}/manifest.json"
METADATA_MANIFEST = "results/raw/{dataset}/metadata/manifest.json"


def fetch_files(ds: dict) -> tuple[list[str], list[str]]:
    """(files the format needs, files it reads when the download has them)."""
    fmt = FORMATS.get(ds["format"])
    return list(fmt.files(ds)), list(fmt.optional(ds))


def raw_inputs(name: str, ds: dict) -> list[str]:
    if "path" in ds["source"]:
        folder = Path(ds["source"]["path"])
        return [str(folder / f) for f in FORMATS.get(ds["format"]).inputs(ds, folder)]
    return [MANIFEST.format(dataset=name)]


def refuse_unreadable(name: str, ds: dict) -> None:
    """ConfigError naming the first local file ingest reads (a `path:` source's, a metadata
    file's) that is there but is neither a regular file nor a folder: a FIFO would block the
    plan's content digest forever, a link to /dev/zero never ends. Missing ones are Snakemake's."""
    meta = [f for files in metadata_inputs(name, ds).values() for f in files]
    for key, files in ((f"datasets.{name}.source.path", raw_inputs(name, ds)), (f"datasets.{name}.metadata", meta)):
        for f in files:
            what = not_a_file(f)
            if what not in (None, "missing", "a folder"):
                raise ConfigError(f"config: {key}: {NotAFileError(f, what)}")


def _join_files(ds: dict) -> dict[str, list[str]]:
    meta = ds.get("metadata") or {}
    out: dict[str, list[str]] = {}
    for join in for_format(ds["format"]):
        out.update(join.files(meta))
    return out


def metadata_fetch_files(ds: dict) -> list[str]:
    """The files a `metadata.source` download must provide (join values are names inside it)."""
    return [f for files in _join_files(ds).values() for f in files]


def metadata_inputs(name: str, ds: dict) -> dict[str, list[str]]:
    meta = ds.get("metadata") or {}
    if "source" in meta and "path" not in meta["source"]:
        return {"metadata_manifest": [METADATA_MANIFEST.format(dataset=name)]}
    root = Path(meta["source"]["path"]) if "source" in meta else None
    return {k: [str(root / f) if root else f for f in files] for k, files in _join_files(ds).items()}


def _as_list(v) -> list[str]:
    return [str(v)] if isinstance(v, (str, Path)) else [str(f) for f in v]


def metadata_paths(ds: dict, named_inputs: dict) -> dict[str, list[str]]:
    """{join key: files} as the ingest reads them, from the rule's named inputs ({name: file(s)})."""
    if "metadata_manifest" in named_inputs:
        root = Path(_as_list(named_inputs["metadata_manifest"])[0]).parent
        return {k: [str(root / f) for f in files] for k, files in _join_files(ds).items()}
    keys = {k for join in for_format(ds["format"]) for k in join.keys + join.optional_keys}
    return {k: _as_list(v) for k, v in named_inputs.items() if k in keys}


def metadata_files(named_inputs: dict) -> list[str]:
    """Every metadata input of a rule (files, folders, a metadata manifest), for provenance."""
    keys = set(metadata_keys()) | {"metadata_manifest"}
    return [f for k, v in named_inputs.items() if k in keys for f in _as_list(v)]


def changed_since_fetch(manifest: str | Path, sha256) -> dict[str, str]:
    """{file: sha256 now} of the files a fetch manifest lists whose bytes are not those fetched
    ({} before the fetch). Ingest carries it in its params: an untouched download adds nothing,
    so its params stay as they were; a raw copy edited after the download, even with an older
    mtime, changes them, and the re-run ingest stops in `sources.check_manifest` naming the file."""
    manifest = Path(manifest)
    try:
        listed = json.loads(manifest.read_text(encoding="utf-8")).get("files", {})
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    out = {}
    for name, sha in sorted(listed.items()):
        now = sha256(manifest.parent / name)
        if now != sha:
            out[str(manifest.parent / name)] = now
    return out


def raw_dir(cfg: dict, raw_files) -> Path:
    """The folder a dataset's raw files are read from: its local `source.path`, or where the
    fetched files lie."""
    return Path(cfg["source"]["path"]) if "path" in cfg["source"] else Path(list(raw_files)[0]).parent
