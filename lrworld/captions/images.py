"""Find each item's image: a local folder (`<item_id>.<ext>`) or a download from the item's image URL
(`poster_url` in items.parquet), kept in a content-addressed folder so it is fetched once."""

from __future__ import annotations

import hashlib
import shutil
import urllib.request
from pathlib import Path
from typing import Callable

import pandas as pd

from lrworld.core.io import atomic_path

EXTS = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".bmp")


def sha256_bytes(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _download(url: str, dest: Path, timeout: float = 60.0) -> None:
    if not url.startswith(("https://", "http://", "file://")):
        raise ValueError(f"{url}: only http(s) and file URLs are fetched")
    with urllib.request.urlopen(url, timeout=timeout) as resp, atomic_path(dest) as tmp:  # noqa: S310
        with open(tmp, "wb") as out:
            shutil.copyfileobj(resp, out)


def collect(items: pd.DataFrame, image_dir: str | Path | None, download_dir: str | Path,
            fetch: Callable[[str, Path], None] = _download) -> tuple[dict[str, Path], dict]:
    """item_id -> image path. A local folder wins over the URL; a failed download is counted, not fatal
    (the item then has no caption, and multimodal questions skip it)."""
    found: dict[str, Path] = {}
    report = {"items": int(len(items)), "from_folder": 0, "downloaded": 0, "already_downloaded": 0,
              "no_image": 0, "download_failed": 0, "failures": []}
    local = {}
    if image_dir:
        for p in sorted(Path(image_dir).iterdir()):
            if p.suffix.lower() in EXTS:
                local.setdefault(p.stem, p)
    download_dir = Path(download_dir)
    for item_id, url in zip(items["item_id"].astype(str), items.get("poster_url", pd.Series([None] * len(items)))):
        if item_id in local:
            found[item_id] = local[item_id]
            report["from_folder"] += 1
            continue
        if not isinstance(url, str) or not url.strip():
            report["no_image"] += 1
            continue
        suffix = Path(url.split("?")[0]).suffix.lower()
        dest = download_dir / (hashlib.sha256(url.encode()).hexdigest()[:32] + (suffix if suffix in EXTS else ".img"))
        if dest.exists():
            report["already_downloaded"] += 1
        else:
            try:
                fetch(url, dest)
                report["downloaded"] += 1
            except Exception as exc:  # noqa: BLE001 - network errors of every kind are counted
                report["download_failed"] += 1
                if len(report["failures"]) < 20:
                    report["failures"].append(f"{item_id}: {url}: {type(exc).__name__}: {exc}")
                continue
        found[item_id] = dest
    return found, report
