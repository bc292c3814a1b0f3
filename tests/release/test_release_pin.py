"""A release pinned by the sha256 of its release.json (`source.release_sha256`): one file edited and
the manifest rewritten to match it is refused in one line naming release.json, at start (a folder,
or a fetched release already unpacked) and in the copy job; the intact release passes both."""

import hashlib
import json
from pathlib import Path

import pytest

from lrworld.config.assembly import validate
from lrworld.core.schema import ConfigError
from lrworld.release import source
from lrworld.release.copy import copy_checked
from lrworld.release.pack import ReleaseError
from lrworld.release.layout import FORMAT


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def release(folder: Path, files: dict[str, bytes]) -> str:
    """A self-consistent release folder; returns the sha256 of its release.json."""
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    manifest = json.dumps({"format": FORMAT, "domain": "movie", "measures": ["attr_genre"],
                           "variants": ["zero_shot"], "files": {r: sha(d) for r, d in files.items()}}).encode()
    (folder / "release.json").write_bytes(manifest)
    return sha(manifest)


FILES = {"questions/attr_genre.jsonl": b'{"qid": "q1"}\n', "questions/attr_genre.report.json": b"{}\n"}


def entry(folder, pin=None) -> dict:
    return {"domain": "movie", "measures": ["attr_genre"],
            "source": {"benchmark": str(folder), **({"release_sha256": pin} if pin else {})}}


def test_an_edited_file_with_a_rewritten_manifest_is_refused_naming_release_json(tmp_path):
    rel = tmp_path / "rel"
    pin = release(rel, FILES)
    outs = [str(tmp_path / "out" / Path(r).name) for r in FILES]
    assert source.check("ml", entry(rel, pin), ["zero_shot"])[0] == rel
    copy_checked(rel, list(FILES), outs, "ml", pin=pin)
    assert Path(outs[0]).read_bytes() == FILES["questions/attr_genre.jsonl"]
    # one file edited, the manifest rewritten to list its new sha256: consistent, and not the pinned one
    release(rel, {**FILES, "questions/attr_genre.jsonl": b'{"qid": "q1", "gold": 3}\n'})
    source.check("ml", entry(rel), ["zero_shot"])  # unpinned: nothing tells it apart
    with pytest.raises(ConfigError) as start:
        source.check("ml", entry(rel, pin), ["zero_shot"])
    line = str(start.value)
    assert line.startswith(f"config: datasets.ml.source.release_sha256: {rel / 'release.json'}: sha256 ")
    assert f"is not the pinned source.release_sha256 {pin}" in line and "\n" not in line
    for out in outs:
        Path(out).unlink()
    with pytest.raises(ReleaseError, match=f"^{rel / 'release.json'}: sha256 [0-9a-f]{{64}} is not the pinned"):
        copy_checked(rel, list(FILES), outs, "ml", pin=pin)
    assert not any(Path(o).exists() for o in outs)  # nothing written


def test_a_fetched_release_swapped_after_its_fetch_is_refused_at_start(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fetched = tmp_path / source.FETCHED.format(dataset="ml")
    pin = release(fetched, FILES)
    url = {"url": "https://example.org/ml.tar.gz", "sha256": "0" * 64}
    ok = {"domain": "movie", "measures": ["attr_genre"], "source": {"benchmark": url, "release_sha256": pin}}
    assert source.check("ml", ok, ["zero_shot"]) == (Path(source.FETCHED.format(dataset="ml")), None)
    release(fetched, {**FILES, "questions/attr_genre.report.json": b'{"n": 1}\n'})
    with pytest.raises(ConfigError, match="release.json: sha256 .* is not the pinned"):
        source.check("ml", ok, ["zero_shot"])


def test_a_pin_without_a_release_is_refused(tmp_path, shared_data):
    cfg = {"datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                               "source": {"path": str(shared_data / "movielens-100k/raw"), "release_sha256": "a" * 64}}},
           "models": {"random": {"backend": "random"}}}
    with pytest.raises(ConfigError, match="datasets.ml.source.release_sha256: pins a release's release.json, but "
                                          "the source is not a benchmark release"):
        validate(cfg)
