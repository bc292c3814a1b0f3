"""Logging for Snakemake script entry points: everything goes to the rule's declared log file."""

from __future__ import annotations

import logging
from typing import NoReturn


def setup(smk) -> logging.Logger:
    handlers = [logging.FileHandler(smk.log[0], mode="w", encoding="utf-8")] if smk.log else []
    handlers.append(logging.StreamHandler())
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        handlers=handlers, force=True)
    return logging.getLogger(f"lrworld.{smk.rule}")


def fail(log: logging.Logger, message: str) -> NoReturn:
    """End the job with one line (in its log and on stderr) instead of a traceback: for errors
    whose message already says what to set."""
    log.error(message)
    raise SystemExit(1)
