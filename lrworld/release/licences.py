"""What a release may be shared under: the terms of the sources its questions were built from (the
release carries item titles and interactions), as each dataset format declares them (`licence=`,
lrworld/data/formats). Read before publishing one."""

from lrworld.data.formats import FORMATS

UNKNOWN = "no licence note for this format: check the source's terms before sharing the release"


def notes(entry: dict) -> dict:
    """{source: note} for a dataset entry: its raw format and each metadata file it joined."""
    fmt = entry.get("format")
    out = {f"format {fmt}": (FORMATS.get(fmt).licence if fmt in FORMATS else None) or UNKNOWN}
    for key in sorted(entry.get("metadata") or {}):
        if key not in ("min_alignment", "year_tolerance", "source"):
            out[f"metadata {key}"] = "joined metadata: the terms of its own source apply (see docs/datasets.md)"
    return out
