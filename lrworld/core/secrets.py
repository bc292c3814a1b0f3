"""Secrets on a command line (a managed server's `command`: `--api-key K`, `--api-key=K`,
`--hf-token K`): found and redacted in one place, for provenance records, the answer job's params
(which Snakemake keeps in .snakemake/metadata) and the server's log."""

from __future__ import annotations

import re

REDACTED = "<redacted>"
# A command-line flag that carries a secret.
SECRET_FLAG = re.compile(r"(?i)^--?[a-z0-9_-]*(api[_-]?key|token|secret|password|passwd|auth)[a-z0-9_-]*$")
# An environment variable that carries a secret (`OPENAI_API_KEY`, `HF_TOKEN`), by a word in its name.
SECRET_ENV_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD")


def _split(argv: list):
    """(argument, secret value or None) per argument."""
    hide_next = False
    for a in argv:
        if hide_next and isinstance(a, str):
            hide_next = False
            yield a, a
            continue
        hide_next = False
        if isinstance(a, str) and a.startswith("-"):
            flag, eq, value = a.partition("=")
            if SECRET_FLAG.match(flag):
                if eq:
                    yield a, value
                    continue
                hide_next = True
        yield a, None


def redact_argv(argv: list) -> list:
    """A command's arguments with the value of every secret flag replaced."""
    out = []
    for a, secret in _split(argv):
        if secret is None:
            out.append(a)
        else:
            out.append(f"{a.partition('=')[0]}={REDACTED}" if a != secret else REDACTED)
    return out


def secret_values(argv: list) -> list[str]:
    """The secret values on a command line (what a server's log must not show)."""
    return [s for _, s in _split(argv) if s]


def secret_env_names(env: dict) -> list[str]:
    """The variables of an environment mapping whose names say they carry a secret."""
    return [k for k in env if any(w in k.upper() for w in SECRET_ENV_WORDS)]
