"""Dataset formats: one module per published layout, each registering itself here.

A format entry carries what the graph needs: the files its loader reads (relative to the raw
folder; every one is a declared input of the ingest rule), the files it reads when present, and
the JSON-schema fragment of its config keys (merged into the config schema by
`lrworld.config.assembly.schema`). A loader returns (interactions, items, users, report).

    @register("my-format", files=lambda cfg: ["ratings.tsv"], options={"encoding": ENCODING_UTF8})
    def load(raw: Path, cfg: dict): ...

A new format is one new file in this package plus its tests (docs/extending.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lrworld.core import plugins
from lrworld.core.registry import Registry, discover
from lrworld.data.textio import resolve

Loaded = tuple  # (interactions, items, users, report)


@dataclass(frozen=True)
class Format:
    name: str
    load: Callable[[Path, dict], Loaded]
    files: Callable[[dict], list[str]]
    optional: Callable[[dict], list[str]]
    options: dict
    description: str
    # what the format is, for code that would otherwise ask its name: the id space of its item ids
    # ("movielens": MovieLens-10M/25M movie ids; None: its own numbering), and the LRWorld paper's
    # dataset it is compared with when its domain does not say (the Netflix layouts: "netflix")
    item_ids: str | None = None
    paper_dataset: str | None = None
    # the terms its source may be shared under (a release carries titles and interactions)
    licence: str | None = None

    def inputs(self, cfg: dict, raw_dir: str | Path | None = None) -> list[str]:
        """The files the loader will read, as they are named in `raw_dir` (a `.gz` twin where only
        that exists); optional files only when present. Without `raw_dir`: the configured names."""
        if raw_dir is None:
            return list(self.files(cfg))
        names = [resolve(raw_dir, f) for f in self.files(cfg)]
        names += [p for p in (resolve(raw_dir, f) for f in self.optional(cfg)) if p.exists()]
        return [str(p.relative_to(raw_dir)) for p in names]


FORMATS: Registry[Format] = Registry("dataset format")


def register(name: str, files: Callable[[dict], list[str]], options: dict | None = None,
             optional: Callable[[dict], list[str]] = lambda cfg: [], item_ids: str | None = None,
             paper_dataset: str | None = None, licence: str | None = None) -> Callable:
    return FORMATS.decorator(name, lambda fn: Format(name, fn, files, optional, dict(options or {}),
                                                     (fn.__doc__ or "").strip().splitlines()[0], item_ids,
                                                     paper_dataset, licence))


# Option fragments several formats share (each format lists the ones it honours).
def encoding(default: str) -> dict:
    return {"type": "string", "default": default,
            "description": "text encoding of the raw files (Python codec name)"}


ON_BAD_LINE = {"enum": ["error", "skip"], "default": "error",
               "description": "a malformed line: stop naming file and line, or skip it and count it"}


discover(__name__)
plugins.import_modules("lrworld.formats")  # an installed package's own (lrworld/core/plugins.py)
