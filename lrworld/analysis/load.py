"""Read the graph's files into per-question DataFrames."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from lrworld.core import io

# results/responses/<ds>/<model>/<measure>/<variant>.jsonl
_RESP = re.compile(r"responses/(?P<dataset>[^/]+)/(?P<model>[^/]+)/(?P<measure>[^/]+)/(?P<variant>[^/]+)\.jsonl$")

COLUMNS = ["dataset", "model", "measure", "variant", "qid", "answer_index", "parsed", "correct", "missed",
           "tokens_in", "tokens_out", "latency_s"]


def responses_frame(paths) -> pd.DataFrame:
    """One row per (model, measure, variant, question): correctness, missed, tokens, latency."""
    rows = []
    for p in paths:
        m = _RESP.search(Path(p).as_posix())
        if not m:
            raise ValueError(f"{p}: not a results/responses/<ds>/<model>/<measure>/<variant>.jsonl path")
        for r in io.read_jsonl(p):
            parsed = r.get("parsed")
            rows.append({**m.groupdict(), "qid": r["qid"], "answer_index": r["answer_index"], "parsed": parsed,
                         "correct": int(parsed is not None and parsed == r["answer_index"]),
                         "missed": int(parsed is None), "tokens_in": r.get("tokens_in"),
                         "tokens_out": r.get("tokens_out"), "latency_s": r.get("latency_s")})
    return pd.DataFrame(rows, columns=COLUMNS)


def model_order(models: list[str]) -> list[str]:
    """The paper's row order: RANDOM first, then the configured order."""
    return sorted(models, key=lambda m: (m != "random", models.index(m)))
