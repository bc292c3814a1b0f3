"""Config files read strictly: a key given twice in one mapping, or a YAML syntax error, is one
line naming the file and line."""

from __future__ import annotations

from pathlib import Path

import yaml

from lrworld.core.schema import ConfigError


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


def load_yaml(path: str | Path):
    """A YAML file with duplicated keys refused, and syntax errors as one line naming file and line."""
    with open(path, encoding="utf-8") as fh:
        loader = _StrictLoader(fh)
        loader.name = str(path)
        try:
            return loader.get_single_data()
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
