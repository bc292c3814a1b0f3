"""A dataset entry `source: {benchmark: <release folder>}`: the graph takes its questions, prompts
and ingested data from the release instead of fetching, ingesting and building ground truth."""

from __future__ import annotations

from pathlib import Path

from lrworld.core.schema import ConfigError
from lrworld.release import layout
from lrworld.release.pack import ReleaseError, read_manifest


def is_benchmark(entry: dict) -> bool:
    return "benchmark" in entry["source"]


def check(name: str, entry: dict, variants: list[str]) -> tuple[Path, dict]:
    """(release folder, manifest), or ConfigError naming the key the release cannot serve."""
    folder = Path(entry["source"]["benchmark"])
    key = f"config: datasets.{name}"
    try:
        man = read_manifest(folder, f"datasets.{name}.source.benchmark")
    except ReleaseError as exc:
        raise ConfigError(f"{key}.source.benchmark: {exc}") from None
    if entry["domain"] != man["domain"]:
        raise ConfigError(f"{key}.domain: {entry['domain']!r}, but the release {folder} is of domain {man['domain']!r}")
    extra = [m for m in entry["measures"] if m not in man["measures"]]
    if extra:
        raise ConfigError(f"{key}.measures: {extra[0]!r} is not in the release {folder} (it has {man['measures']})")
    extra = [v for v in variants if v not in man["variants"]]
    if extra:
        raise ConfigError(f"config: variants: {extra[0]!r} has no prompts in the release {folder} of datasets.{name} "
                          f"(it has {man['variants']})")
    return folder, man


def files(dataset: str, folder: Path, man: dict, results_paths: list[str]) -> tuple[list[str], list[str]]:
    """(release files, their manifest sha256) behind these results paths, in order."""
    by_built = {b: r for r, b in layout.pairs(dataset, man["measures"], man["variants"])}
    rels = [by_built[p] for p in results_paths]
    return [str(folder / r) for r in rels], [man["files"][r] for r in rels]
