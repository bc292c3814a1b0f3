"""Find each item's image: a local folder (`image_dir`, files `<item_id>.<ext>`), an ABO image file
the ingest aligned (`abo_image`), or a download from the item's image URL (`poster_url`), kept in
`<download_dir>/<sha256 of the URL>.<ext>` so it is fetched once.

Every image, local or downloaded, must decode as an image before it is used: only images are
captioned or sent to a captioner. A URL that is refused or fails is a counted skip with its reason.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Callable

import pandas as pd

from lrworld.captions.fetch import EXTENSIONS, FetchPolicy, Refused, Unreachable, check_image_file, fetch_image, public_form
from lrworld.core import progress
from lrworld.core.io import atomic_path

EXTS = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".bmp")
# Downloads that fail for want of a network before any succeeded: then every other URL would
# fail the same way, one timeout each, so the rest are skipped as `offline`.
OFFLINE_AFTER = 3


class CaptionError(ValueError):
    """A captions job that cannot do anything useful; the message says what to set."""


def sha256_bytes(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _local_images(image_dir) -> dict[str, Path]:
    folder = Path(image_dir)
    if not folder.is_dir():
        raise CaptionError(f"image_dir {folder}: not a folder (it should hold <item_id>.<ext> image files)")
    local: dict[str, Path] = {}
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in EXTS:
            local.setdefault(p.stem, p)
    return local


def _download(url: str, download_dir: Path, policy: FetchPolicy, fetch: Callable) -> tuple[Path, bool]:
    """(stored path, whether it was fetched now) for an image URL."""
    stem = hashlib.sha256(url.encode()).hexdigest()[:32]
    for ext in dict.fromkeys(EXTENSIONS.values()):
        cached = download_dir / (stem + ext)
        if cached.exists():
            try:
                check_image_file(cached)
                return cached, False
            except Refused:  # damaged in the cache: fetched again
                cached.unlink()
    body, fmt = fetch(url, policy)
    dest = download_dir / (stem + EXTENSIONS[fmt])
    with atomic_path(dest) as tmp:
        tmp.write_bytes(body)
    return dest, True


def collect(items: pd.DataFrame, image_dir: str | Path | None, download_dir: str | Path, policy: FetchPolicy,
            fetch: Callable[[str, FetchPolicy], tuple[bytes, str]] = fetch_image) -> tuple[dict[str, Path], dict]:
    """item_id -> image path, and a report. Raises CaptionError when no item has a usable image."""
    found: dict[str, Path] = {}
    counts = Counter()
    skipped = Counter()
    failures: list[str] = []
    local = _local_images(image_dir) if image_dir else {}
    download_dir = Path(download_dir)
    n = len(items)
    urls = items["poster_url"] if "poster_url" in items.columns else pd.Series([None] * n)
    abo = items["abo_image"] if "abo_image" in items.columns else pd.Series([None] * n)
    unreachable_run = 0

    def skip(item_id, what, exc: Refused):
        skipped[exc.reason] += 1
        if len(failures) < 20:
            failures.append(f"{item_id}: {what}: {exc}")

    rows = zip(items["item_id"].astype(str), urls, abo)
    for item_id, url, abo_file in progress.bar(n, "images", "item", iterable=rows):
        local_file = local.get(item_id) or (Path(abo_file) if isinstance(abo_file, str) and abo_file else None)
        if local_file is not None:
            try:
                check_image_file(local_file)
            except (Refused, OSError) as exc:
                skip(item_id, str(local_file), exc if isinstance(exc, Refused) else Refused("unreadable", str(exc)))
                continue
            found[item_id] = local_file
            counts["from_folder" if item_id in local else "from_abo"] += 1
            continue
        if not isinstance(url, str) or not url.strip():
            counts["no_image"] += 1
            continue
        url = url.strip()
        if unreachable_run >= OFFLINE_AFTER and not counts["downloaded"]:
            skipped["offline"] += 1
            continue
        try:
            path, fetched = _download(url, download_dir, policy, fetch)
        except Refused as exc:
            unreachable_run = unreachable_run + 1 if isinstance(exc, Unreachable) else unreachable_run
            skip(item_id, public_form(url), exc)
            continue
        unreachable_run = 0
        counts["downloaded" if fetched else "already_downloaded"] += 1
        found[item_id] = path
    report = {"items": n, "from_folder": counts["from_folder"], "from_abo": counts["from_abo"],
              "downloaded": counts["downloaded"], "already_downloaded": counts["already_downloaded"],
              "no_image": counts["no_image"], "skipped": dict(sorted(skipped.items())),
              "skipped_total": sum(skipped.values()), "failures": failures}
    if not found:
        raise CaptionError(f"no poster could be fetched: set image_dir or run online "
                           f"({n} items, {int(urls.notna().sum())} with an image URL; skipped: {report['skipped']})")
    return found, report
