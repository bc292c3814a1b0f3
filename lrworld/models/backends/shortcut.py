"""A knowledge-free reference row: one shortcut rule (lrworld/models/shortcut.py) answers every
question, from the options' texts, slots and the per-option signals the question carries. Shown
beside RANDOM: a measure on which a shortcut beats chance can be passed without the knowledge it
tests (docs/audit.md)."""

from __future__ import annotations

from typing import Sequence

from lrworld.models.base import PromptItem, Response
from lrworld.models.registry import register_backend
from lrworld.models.shortcut import pick, shortcuts


def _check(cfg: dict) -> str | None:
    return None if "rule" in cfg else f"rule: missing; the shortcut backend needs one of {shortcuts().names()}"


@register_backend("shortcut", schema={"rule": {"enum": shortcuts().names()},  # one file each: lrworld/models/shortcuts/
                                      "seed": {"type": "integer", "minimum": 0, "default": 0},
                                      # no model: the floors of lrworld/workflow/resources.py size its job
                                      "throughput_tokens_s": {"type": "number", "exclusiveMinimum": 0,
                                                              "default": 100000},
                                      "startup_s": {"type": "number", "minimum": 0, "default": 0}},
                  check=_check)
class ShortcutBackend:
    """A knowledge-free answerer (`rule:` one of lrworld/models/shortcuts/): a reference row that reads only the options, the data's counts or the other questions' golds."""

    def __init__(self, name: str, cfg: dict):
        self.name = name
        self.rule = cfg["rule"]
        self.seed = int(cfg["seed"])
        self.reads = shortcuts().get(self.rule).reads

    def identity(self) -> dict:
        # the signals it reads key its cached answers (lrworld/inference/cache.py:request_key)
        return {"backend": "shortcut", "rule": self.rule, "seed": self.seed,
                **({"request_fields": ["option_signals"]} if self.reads else {})}

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        out = []
        for item in items:
            if not item.labels:
                raise ValueError(f"{item.qid}: the shortcut backend answers option questions only")
            idx = pick(self.rule, item, self.seed)
            out.append(Response(qid=item.qid, raw_text=item.labels[idx], tokens_in=0, tokens_out=0,
                                latency_s=0.0, choice_index=idx))
        return out
