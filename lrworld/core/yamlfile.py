"""Config files read strictly: a key given twice in one mapping, or a YAML syntax error, is one
line naming the file and line; aliases that expand past MAX_VALUES values (an alias bomb: 1.5 KB of
nested `*a` that loads in milliseconds as shared objects, then takes minutes and gigabytes to
validate or copy) are refused before anything walks them."""

from __future__ import annotations

from pathlib import Path

import yaml

from lrworld.core.schema import ConfigError

# config.yaml holds 358 values; a config that expands past 500 times that is a bomb, not a config
MAX_VALUES = 200_000


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise ConfigError(f"{self.name}:{key_node.start_mark.line + 1}: key {key!r} is given twice "
                                  f"(first on line {seen[key]}); remove one")
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


def _expanded_values(root) -> int:
    """How many values the node tree holds once every alias is written out (each node counted as
    often as it is referred to); stops counting past MAX_VALUES. A node that contains itself counts
    as too many."""
    sizes: dict[int, int] = {}

    def size(node) -> int:
        key = id(node)
        if key in sizes:
            if sizes[key] < 0:
                return MAX_VALUES + 1  # recursive alias: infinite once written out
            return sizes[key]
        sizes[key] = -1
        total = 1
        if isinstance(node, yaml.SequenceNode):
            for child in node.value:
                total += size(child)
                if total > MAX_VALUES:
                    break
        elif isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                total += size(k) + size(v)
                if total > MAX_VALUES:
                    break
        sizes[key] = min(total, MAX_VALUES + 1)
        return sizes[key]

    return size(root)


def load_yaml(path: str | Path):
    """A YAML file with duplicated keys refused, and syntax errors as one line naming file and line."""
    with open(path, encoding="utf-8") as fh:
        loader = _StrictLoader(fh)
        loader.name = str(path)
        try:
            node = loader.get_single_node()
            if node is not None and _expanded_values(node) > MAX_VALUES:
                raise ConfigError(f"{path}: YAML aliases (*name) expand to more than {MAX_VALUES:,} values; "
                                  f"refused as an alias bomb (write the values out, or use fewer aliases)")
            return loader.construct_document(node) if node is not None else None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark else str(path)
            raise ConfigError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
        finally:
            loader.dispose()


def check_files(paths) -> None:
    """The config files Snakemake merged (config.yaml and each --configfile), read strictly."""
    for p in paths:
        load_yaml(p)
