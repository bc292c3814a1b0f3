"""lrworld/core/io.py: what a killed atomic write leaves is removed by the next job writing into its
folder, and never a live writer's temporary; nothing but a regular file is hashed or read."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lrworld.core import io

ROOT = Path(__file__).resolve().parents[2]
# a job inside an atomic write: it prints its temporary and waits there
WRITER = """
import sys, time
from lrworld.core import io
with io.atomic_path(sys.argv[1]) as tmp:
    tmp.write_text("half")
    print(tmp, flush=True)
    time.sleep(600)
"""
HOUR = 3600


def writer(target: Path) -> tuple[subprocess.Popen, Path]:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    tmp = Path(proc.stdout.readline().strip())
    st = tmp.stat()  # as if the write had begun an hour before this job
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns - HOUR * 10**9))
    return proc, tmp


def test_a_resumed_job_removes_what_a_killed_write_left_and_keeps_a_live_writers(tmp_path):
    replies = tmp_path / "cache/replies/lrworld/ml"
    killed, killed_tmp = writer(replies / "random.json")
    live, live_tmp = writer(replies / "smollm2.json")  # a concurrent job's write in progress
    assert killed_tmp.name.startswith(".random.json.") and killed_tmp.name.endswith(".tmp")
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    others = [".random.json.tmp", "random.json.0123456789ab.tmp", ".random.json.0123456789AB.tmp"]
    for name in others:  # not what atomic_path writes: never touched
        (replies / name).write_text("x")
        os.utime(replies / name, (time.time() - HOUR, time.time() - HOUR))
    assert killed_tmp.exists() and live_tmp.exists()
    # the resumed job: its write of random.json sweeps the folder first
    subprocess.run([sys.executable, "-c", "import sys; from lrworld.core import io; io.write_json(sys.argv[1], {'a': 1})",
                    str(replies / "random.json")], cwd=ROOT, check=True)
    try:
        assert json.loads((replies / "random.json").read_text()) == {"a": 1}
        assert sorted(p.name for p in replies.iterdir()) == sorted([*others, "random.json", live_tmp.name])
    finally:
        live.kill()
        live.wait()


def test_an_unlocked_temporary_newer_than_the_job_is_kept(tmp_path):
    # created after this process started: possibly a writer between its create and its lock
    fresh = tmp_path / ".a.json.0123456789ab.tmp"
    fresh.write_text("x")
    old = tmp_path / ".b.json.0123456789ab.tmp"
    old.write_text("x")
    os.utime(old, (time.time() - HOUR, time.time() - HOUR))
    assert io.sweep_temps(tmp_path) == [old.name]
    assert fresh.exists() and not old.exists()


def fifo(path: Path) -> None:
    os.mkfifo(path)


def zero(path: Path) -> None:
    os.symlink("/dev/zero", path)


@pytest.mark.parametrize("make, what", [(fifo, "a FIFO"), (zero, "a character device")])
def test_hashing_or_reading_refuses_what_is_not_a_regular_file_at_once(tmp_path, make, what):
    make(tmp_path / "x")
    t0 = time.monotonic()
    for read in (io.sha256_file, io.read_json):
        with pytest.raises(io.NotAFileError, match=f"^{tmp_path / 'x'}: {what}, not a regular file"):
            read(tmp_path / "x")
    assert time.monotonic() - t0 < 5
    (tmp_path / "y").write_bytes(b"[1]")
    os.symlink(tmp_path / "y", tmp_path / "link")  # a link to a regular file is read through
    assert io.sha256_file(tmp_path / "link") == hashlib.sha256(b"[1]").hexdigest() and io.read_json(tmp_path / "link") == [1]
