"""A dataset entry `source: {benchmark: ...}`: the graph takes its questions, prompts and ingested
data from a release instead of fetching, ingesting and building ground truth. The release is a
folder written by `lrworld pack`, or an archive of one at a URL with its sha256, which rule
`fetch_benchmark` downloads and unpacks to results/release/<dataset>/ (lrworld/release/fetch.py)."""

from __future__ import annotations

from pathlib import Path

from lrworld.core.io import sha256_file
from lrworld.core.schema import ConfigError
from lrworld.release import layout
from lrworld.release.pack import ReleaseError, member_problem, read_manifest

FETCHED = "results/release/{dataset}"  # a release given by URL, unpacked and verified


def is_benchmark(entry: dict) -> bool:
    return "benchmark" in entry["source"]


def is_fetched(entry: dict) -> bool:
    """A release given as {url, sha256} (its manifest exists only once fetch_benchmark ran)."""
    return isinstance(entry["source"].get("benchmark"), dict)


def problem(name: str, man: dict, folder, domain: str | None = None, measures=(), variants=(),
            extra_variants: dict | None = None) -> str | None:
    """One line naming the config key this release cannot serve, or None."""
    key = f"config: datasets.{name}"
    if domain is not None and domain != man["domain"]:
        return f"{key}.domain: {domain!r}, but the release {folder} is of domain {man['domain']!r}"
    extra = [m for m in measures if m not in man["measures"]]
    if extra:
        return f"{key}.measures: {extra[0]!r} is not in the release {folder} (it has {man['measures']})"
    extra = [v for v in variants if v not in man["variants"]]
    if extra:
        return (f"config: variants: {extra[0]!r} has no prompts in the release {folder} of datasets.{name} "
                f"(it has {man['variants']})")
    for m, vs in (extra_variants or {}).items():
        for v in vs:
            if f"prompts/{m}/{v}.jsonl" not in man.get("files", {}):
                return (f"{key}.extra_variants.{m}: {v!r} has no prompts for {m!r} in the release {folder}")
    return None


def pin(entry: dict) -> str | None:
    """The sha256 the config pins the release's release.json to (`source.release_sha256`), or None."""
    value = entry["source"].get("release_sha256")
    return value.lower() if value else None


def check_pin(folder: str | Path, want: str | None) -> None:
    """ReleaseError in one line naming release.json when the pinned release's manifest is not the
    pinned one (a file edited and the manifest rewritten to match: the manifest's digest changes)."""
    if not want:
        return
    manifest = Path(folder) / layout.MANIFEST
    got = sha256_file(manifest) if manifest.is_file() else "(missing)"
    if got != want:
        raise ReleaseError(f"{manifest}: sha256 {got} is not the pinned source.release_sha256 {want} "
                           f"(a changed release; `lrworld verify` on the folder lists its files)")


def check(name: str, entry: dict, variants: list[str], extra_variants: dict | None = None,
          sha256=None) -> tuple[Path, dict | None]:
    """(release folder, manifest), or ConfigError naming the key the release cannot serve. A
    release at a URL is checked where it is fetched (its manifest: None here); once fetched, a
    pinned one is checked against its pin here too. With `sha256` (a file's digest), a file whose
    bytes are not its manifest's is refused here, before any job: a copy job's outputs are
    deleted when it starts, so refusing in the job would lose the copies made before."""
    if is_fetched(entry):
        folder = Path(FETCHED.format(dataset=name))
        if (folder / layout.MANIFEST).is_file():
            try:
                check_pin(folder, pin(entry))
            except ReleaseError as exc:
                raise ConfigError(f"config: datasets.{name}.source.release_sha256: {exc}") from None
            line = changed(name, folder, read_manifest(folder), sha256)
            if line:
                raise ConfigError(line)
        return folder, None
    folder = Path(entry["source"]["benchmark"])
    try:
        man = read_manifest(folder, f"datasets.{name}.source.benchmark")
    except ReleaseError as exc:
        raise ConfigError(f"config: datasets.{name}.source.benchmark: {exc}") from None
    try:
        check_pin(folder, pin(entry))
    except ReleaseError as exc:
        raise ConfigError(f"config: datasets.{name}.source.release_sha256: {exc}") from None
    line = problem(name, man, folder, entry["domain"], entry["measures"], variants, extra_variants) or \
        unreadable(name, folder, man) or changed(name, folder, man, sha256)
    if line:
        raise ConfigError(line)
    return folder, man


def unreadable(name: str, folder: Path, man: dict) -> str | None:
    """One line naming the first file the manifest lists that is there but not a plain file inside
    the folder (a FIFO, a link to /dev/zero): refused before anything hashes it, which would
    block or never end. A missing one is left to the copy job."""
    for rel in man["files"]:
        why = member_problem(folder, rel)
        if why not in (None, "missing"):
            return (f"config: datasets.{name}.source.benchmark: {folder / rel}: {why}, not a regular file "
                    "(a release names only plain files inside its folder; `lrworld verify` lists them)")
    return None


def changed_line(path, got: str, want: str) -> str:
    return (f"{path}: sha256 {got} differs from the release manifest's {want} "
            "(a changed release: `lrworld verify` on the folder lists every file)")


def changed(name: str, folder: Path, man: dict, sha256) -> str | None:
    """One line naming the first file the manifest lists whose bytes are not its manifest's (a
    missing one is left to Snakemake: the copies declare them as inputs)."""
    if sha256 is None:
        return None
    for rel, want in man["files"].items():
        if member_problem(folder, rel) is None and (got := sha256(folder / rel)) != want:
            return f"config: datasets.{name}.source.benchmark: {changed_line(folder / rel, got, want)}"
    return None


def files(dataset: str, measures, variants, results_paths: list[str], extra_variants: dict | None = None) -> list[str]:
    """The release paths behind these results paths, in order."""
    by_built = {b: r for r, b in layout.pairs(dataset, measures, variants, extra_variants)}
    return [by_built[p] for p in results_paths]


def changed_files(folder: Path, rels: list[str], sha256) -> dict[str, str]:
    """{file: sha256 now} of the release paths whose bytes differ from the folder's manifest ({}
    before the release is there)."""
    try:
        listed = read_manifest(folder)["files"]
    except ReleaseError:
        return {}
    out = {}
    for rel in rels:
        now = sha256(Path(folder) / rel)
        if now != listed.get(rel):
            out[str(Path(folder) / rel)] = now
    return out
