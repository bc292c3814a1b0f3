"""Atomic, deterministic file writes and hashing.

Every artifact is written to a temporary file in the same folder and renamed into place, so a
killed job never leaves a half-written file that a rerun would trust.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import secrets
from pathlib import Path
from typing import Any, Iterable, Iterator


def _new_temp(path: Path) -> str:
    """An empty new file beside `path`, created 0666 minus the umask: mkstemp would make it 0600,
    and the rename would carry that onto the artifact (a group could not read shared results)."""
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{path.parent}: no free temporary name for {path.name}")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it onto `path` only if the block succeeds.
    The artifact's mode follows the umask, like a plain open()."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _new_temp(path)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())


def json_safe(obj: Any) -> Any:
    """`obj` with every NaN or infinite float as None: a missing value is null in JSON (NaN and
    Infinity are not JSON; readers in other languages reject them)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def dumps_canonical(obj: Any) -> str:
    """JSON with sorted keys and no locale-dependent formatting: identical input, identical bytes."""
    return json.dumps(json_safe(obj), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    # NaN/Infinity are not JSON: written as null (a missing value); allow_nan=False is the backstop
    write_text(path, json.dumps(json_safe(obj), sort_keys=True, ensure_ascii=False, indent=2, allow_nan=False) + "\n")


def write_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> int:
    n = 0
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(dumps_canonical(rec) + "\n")
                n += 1
            fh.flush()
            os.fsync(fh.fileno())
    return n


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
    return out


def read_json(path: str | os.PathLike) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def write_parquet(path: str | os.PathLike, df) -> None:
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
