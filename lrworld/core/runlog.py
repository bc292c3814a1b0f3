"""Logging for Snakemake script entry points: everything goes to the rule's declared log file.

An error lrworld raises on purpose (its own exception classes: DataError, ConfigError,
BackendError, CacheError, ...) already says in one line what is wrong and what to do: a job that
dies of one logs that line, not a traceback. Any other exception keeps its traceback.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from typing import NoReturn

from lrworld.core import disk

# HTTP clients log every request URL at INFO; a URL may carry credentials. Only their warnings pass.
QUIET_LOGGERS = ("httpx", "httpx2", "httpcore", "httpcore2", "openai", "urllib3", "huggingface_hub")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s'\"]+")
_SECRET_ENV = re.compile(r"(?i)(key|token|secret|password|passwd)")


def redact(text: str) -> str:
    """`text` without URL credentials, bearer tokens, or the value of any environment variable
    whose name says it is a secret (OPENAI_API_KEY, HF_TOKEN, ...)."""
    text = _BEARER.sub(r"\1***", _USERINFO.sub(r"\1***@", text))
    for name, value in os.environ.items():
        if len(value) >= 8 and _SECRET_ENV.search(name) and value in text:
            text = text.replace(value, "***")
    return text


class RedactSecrets(logging.Filter):
    """A handler filter: the record's message and traceback are redacted before any handler writes."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), ()
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def setup(smk) -> logging.Logger:
    handlers = [logging.FileHandler(smk.log[0], mode="w", encoding="utf-8")] if smk.log else []
    handlers.append(logging.StreamHandler())
    for h in handlers:
        h.addFilter(RedactSecrets())
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        handlers=handlers, force=True)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    log = logging.getLogger(f"lrworld.{smk.rule}")

    def one_line(kind, exc, tb):
        disk_line = disk.job_message(exc, list(getattr(smk, "output", None) or ()))
        if disk_line:  # a full or read-only file system: the atomic writers kept nothing half-written
            log.error("%s", disk_line)
        elif getattr(kind, "__module__", "").startswith("lrworld."):
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


def stats_line(obj) -> str:
    """A stats dict as one sorted JSON line (readable in the log, greppable across jobs)."""
    return json.dumps(obj, sort_keys=True, default=str)
