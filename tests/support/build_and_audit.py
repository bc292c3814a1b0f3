"""Every question builder of a dataset's measures run in-process, then the audit over what they
built: the property the builders and the audit share (one definition per rule) on any data."""

from __future__ import annotations

import pandas as pd

from lrworld.audit.report import audit_dataset
from lrworld.groundtruth.neumf import embeddings_frame, train_neumf_seeds
from lrworld.groundtruth.prototypes import all_prototypes
from lrworld.groundtruth.rules import mine_rules
from lrworld.groundtruth.similarity import similar_pairs
from lrworld.prompts.render import item_keys
from lrworld.questions import measures
from lrworld.questions.build import QuestionError, build_questions
from lrworld.questions.builders import build_from_artifact


def _artifacts(name: str, inter: pd.DataFrame, items: pd.DataFrame, wanted: set[str], n: int, seed: int,
               min_support: float) -> dict:
    display = item_keys(items)
    out = {}
    if "rules" in wanted:
        out["rules"], _ = mine_rules(inter, min_support=min_support, min_confidence=0.01, max_len=3, window=20)
    for kind in ("item", "user"):
        if f"{kind}_similar_pairs" in wanted:
            out[f"{kind}_similar_pairs"], _ = similar_pairs(inter, kind, n, threshold=0.01, seed=seed, dataset=name,
                                                            display=display if kind == "item" else None,
                                                            margin=1e-6)
    if "prototypes" in wanted:
        res = train_neumf_seeds(inter, seeds=1, seed=seed, dataset=name, epochs=1, device="cpu", eval_users=50,
                                log=lambda *a: None)
        out["embeddings"] = embeddings_frame(res)
        out["prototypes"], _ = all_prototypes(out["embeddings"], inter, n, k=5, seed=seed, dataset=name,
                                              display=display, margin=0.0)
    return out


def build_and_audit(name: str, domain: str, inter: pd.DataFrame, items: pd.DataFrame, measure_ids, n: int = 10,
                    seed: int = 0, facts: pd.DataFrame | None = None, allow_unbuildable: bool = False,
                    min_support: float = 0.01):
    """(audit, violations, questions per measure) of `measure_ids` built with `n` questions each;
    `allow_unbuildable`: a knowledge measure the data cannot make is left out, not an error."""
    ms = [measures.get(domain, m) for m in measure_ids]
    arts = _artifacts(name, inter, items, {m.artifact for m in ms if m.artifact}, n, seed, min_support)
    questions, reports = {}, {}
    for m in ms:
        if m.artifact:
            qs, rep = build_from_artifact(m, inter, arts[m.artifact], n, seed, name, display=item_keys(items))
        else:
            try:
                qs, rep = build_questions(name, domain, m.id, inter, items, 5, n, seed)
            except QuestionError:
                if not allow_unbuildable:
                    raise
                continue  # the data cannot make this measure (too few distinct values): nothing to audit
        questions[m.id] = (f"results/questions/{name}/{m.id}.jsonl", qs)
        reports[m.id] = rep
    audit, violations = audit_dataset(name, domain, questions, [], reports, inter, items, {}, arts, facts)
    return audit, violations, {m: qs for m, (_, qs) in questions.items()}
