"""Logging for Snakemake script entry points: everything goes to the rule's declared log file."""

from __future__ import annotations

import json
import logging


def setup(smk) -> logging.Logger:
    handlers = [logging.FileHandler(smk.log[0], mode="w", encoding="utf-8")] if smk.log else []
    handlers.append(logging.StreamHandler())
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        handlers=handlers, force=True)
    return logging.getLogger(f"lrworld.{smk.rule}")


def stats_line(obj) -> str:
    """A stats dict as one sorted JSON line (readable in the log, greppable across jobs)."""
    return json.dumps(obj, sort_keys=True, default=str)
