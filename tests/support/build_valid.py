"""A dataset's measures built in-process under the valid construction (config/debiased.yaml: matched
distractors, one question per 10-candidate gold, the filter against the negative controls, the
neural gold from NeuMF's predicted preference), and every control of docs/audit.md over them: the
shortcut rules, the learned answerer, the positive control."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from lrworld.groundtruth.positive_control import positive_controls
from lrworld.audit.validity import learned_controls
from lrworld.groundtruth.neumf import Preferences, embeddings_frame, train_neumf_seeds
from lrworld.groundtruth.prototypes import all_prototypes
from lrworld.groundtruth.rules import mine_rules
from lrworld.groundtruth.similarity import similar_pairs
from lrworld.prompts.render import ItemTexts, item_keys
from lrworld.questions import measures, signals
from lrworld.questions.build import QuestionError, build_questions
from lrworld.questions.builders import build_from_artifact
from lrworld.questions.distractors import Debias
from lrworld.questions.learned import wilson
from lrworld.questions.option_features import Closeness
from lrworld.questions.validity import Validity, rule_hits

ROOT = Path(__file__).resolve().parents[2]
EXCLUDE = {"genres": ["IMAX", "(no genres listed)"]}


def valid_settings() -> tuple[Debias, Validity, str]:
    """config/debiased.yaml's construction, read from the file itself."""
    cfg = yaml.safe_load((ROOT / "config/debiased.yaml").read_text())
    q = cfg["questions"]
    return Debias(q["distractors"], q["max_gold_share"]), Validity.of(q["validity"]), cfg["groundtruth"]["neural"]["gold"]


def _artifacts(name, inter, items, wanted, n, seed, debias, validity, gold, min_support, neumf):
    display = item_keys(items)
    close = Closeness(items, inter, EXCLUDE)
    asked = validity.asked(n)
    out = {}
    if "rules" in wanted:
        out["rules"], _ = mine_rules(inter, min_support=min_support, min_confidence=0.01, max_len=3, window=20)
    for kind in ("item", "user"):
        if f"{kind}_similar_pairs" in wanted:
            out[f"{kind}_similar_pairs"], _ = similar_pairs(
                inter, kind, asked, threshold=0.01, seed=seed, dataset=name, display=display if kind == "item" else None,
                margin=1e-6, debias=debias, closeness=close)
    prefs = None
    if "prototypes" in wanted:
        res = train_neumf_seeds(inter, seed=seed, dataset=name, device="cpu", log=lambda *a: None, **neumf)
        prefs = Preferences(res)
        out["prototypes"], _ = all_prototypes(embeddings_frame(res), inter, asked, k=10, seed=seed, dataset=name,
                                              display=display, margin=0.01, min_interactions=5, debias=debias,
                                              closeness=close, preferences=prefs if gold == "score" else None)
    return out, prefs


def build_valid(name: str, domain: str, inter: pd.DataFrame, items: pd.DataFrame, n: int, facts=None,
                seed: int = 2024, min_support: float = 0.01, neumf: dict | None = None, only=None) -> dict[str, dict]:
    """measure -> {questions, report, rules (name -> correct), learned, positive} of every measure of
    `domain` the data can make (multimodal needs captions: left out; `only`: these measures)."""
    debias, validity, gold = valid_settings()
    ms = [m for m in measures.for_domain(domain) if not m.needs and (m.field is None or m.field in items.columns)
          and (only is None or m.id in only)]
    arts, prefs = _artifacts(name, inter, items, {m.artifact for m in ms if m.artifact}, n, seed, debias, validity,
                             gold, min_support, neumf or {"seeds": 1, "epochs": 3})
    built = {}
    for m in ms:
        try:
            if m.artifact:
                qs, rep = build_from_artifact(m, inter, arts[m.artifact], n, seed, name, display=item_keys(items),
                                              debias=debias, items=items, exclude_values=EXCLUDE, validity=validity)
            else:
                qs, rep = build_questions(name, domain, m.id, inter, items, 5, n, seed, exclude_values=EXCLUDE,
                                          debias=debias, validity=validity)
        except QuestionError:
            continue  # the data cannot make this measure (no value of its field)
        if qs:
            built[m.id] = {"questions": qs, "report": rep}
    records = {m: b["questions"] for m, b in built.items()}
    learned = learned_controls(name, domain, records, inter, items, EXCLUDE, seed)
    positive = positive_controls(name, domain, records, inter, items, facts, prefs, seed)
    texts = ItemTexts(items, EXCLUDE)
    for m, b in built.items():
        measure = measures.by_id(m)
        hits = rule_hits(b["questions"], texts, signals.popularity(inter, items, measure.field), measure.own_signals)
        b["rules"] = {r: int(h.sum()) for r, h in hits.items()}
        b["learned"], b["positive"] = learned.get(m), positive.get(m)
        # signals.attach again: rule_hits recounts them in place, on the same questions
        signals.attach(b["questions"], signals.popularity(inter, items, measure.field))
    return built


def rule_above(counts: dict[str, int], n: int, chance: float) -> list[str]:
    """The rules whose 95% Wilson interval lies above chance."""
    return [r for r, k in counts.items() if wilson(k, n)[0] > chance]


def chance_of(questions: list[dict]) -> float:
    return float(np.mean([1 / len(q["candidates"]) for q in questions]))
