"""Artifacts follow the umask: a group can read a shared results folder."""

import os
import stat

import pandas as pd
import pytest

from lrworld.core import io


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_every_writer_follows_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        io.write_json(tmp_path / "a.json", {"x": 1})
        io.write_jsonl(tmp_path / "b.jsonl", [{"x": 1}])
        io.write_text(tmp_path / "c.txt", "x")
        io.write_parquet(tmp_path / "d.parquet", pd.DataFrame({"x": [1]}))
        with io.atomic_path(tmp_path / "sub" / "e.bin") as tmp:
            tmp.write_bytes(b"x")
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.rglob("*") if p.is_file()}
    assert modes == dict.fromkeys(["a.json", "b.jsonl", "c.txt", "d.parquet", "e.bin"], mode)
