"""Checks of a dataset's config block that the JSON schema cannot express (its defaults:
`lrworld.data.schema.dataset_defaults`)."""

from __future__ import annotations

import codecs


def _downloads(source: dict) -> list[dict]:
    url = source.get("url")
    if url is None:
        return []
    if isinstance(url, str):
        return [{k: source[k] for k in ("url", "sha256", "md5") if k in source}]
    return list(url)


def problem(name: str, ds: dict) -> str | None:
    """One line naming the key, or None."""
    enc = ds.get("encoding")
    if enc is not None:
        try:
            codecs.lookup(enc)
        except LookupError:
            return f"datasets.{name}.encoding: {enc!r} is not a known text encoding"
    sources = [("source", ds.get("source") or {})]
    if isinstance(ds.get("metadata"), dict) and "source" in ds["metadata"]:
        sources.append(("metadata.source", ds["metadata"]["source"]))
    for key, src in sources:
        if src.get("trust_first_download"):
            continue
        for d in _downloads(src):
            if "sha256" not in d and "md5" not in d:
                return (f"datasets.{name}.{key}: {d['url']} has no sha256 or md5; add the publisher's checksum, or "
                        f"set trust_first_download: true to accept the first download and record its sha256")
    return None
