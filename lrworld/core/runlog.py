"""Logging for Snakemake script entry points: everything goes to the rule's declared log file.

An error lrworld raises on purpose (its own exception classes: DataError, ConfigError,
BackendError, CacheError, ...) already says in one line what is wrong and what to do: a job that
dies of one logs that line, not a traceback. Any other exception keeps its traceback.
"""

from __future__ import annotations

import logging
import sys
from typing import NoReturn


def setup(smk) -> logging.Logger:
    handlers = [logging.FileHandler(smk.log[0], mode="w", encoding="utf-8")] if smk.log else []
    handlers.append(logging.StreamHandler())
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        handlers=handlers, force=True)
    log = logging.getLogger(f"lrworld.{smk.rule}")

    def one_line(kind, exc, tb):
        if getattr(kind, "__module__", "").startswith("lrworld."):
            log.error("%s", exc)
        else:
            log.error("%s: %s", kind.__name__, exc, exc_info=(kind, exc, tb))

    sys.excepthook = one_line
    return log


def fail(log: logging.Logger, message: str) -> NoReturn:
    """End the job with one line (in its log and on stderr) instead of a traceback: for errors
    whose message already says what to set."""
    log.error(message)
    raise SystemExit(1)
