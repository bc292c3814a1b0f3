"""A digest of what a number was computed from, stable across reruns.

A responses file also holds latencies, which differ on every run, so its file sha256 (kept in the
provenance record) changes even when every answer is the same. The score file carries this
digest instead, so a rebuild with the same answers gives a byte-identical score file."""

from __future__ import annotations

from lrworld.core import io

ANSWER_FIELDS = ("qid", "prompt_sha256", "cache_key", "answer_index", "raw_text", "choice_index", "parsed")


def answers_sha256(records: list[dict]) -> str:
    return io.sha256_text("\n".join(io.dumps_canonical({k: r.get(k) for k in ANSWER_FIELDS}) for r in records))
