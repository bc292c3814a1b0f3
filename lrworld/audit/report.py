"""Run every check over one dataset (or the slot sequences over all datasets) and lay out the
result: the audit json and its readable table."""

from __future__ import annotations

from collections import Counter

import pandas as pd

from lrworld.audit import checks, golds, slots
from lrworld.questions import measures, shortfall, witnesses
from lrworld.prompts.render import item_keys

# Counts from the question reports that say what the benchmark is made of.
REPORT_KEYS = ("requested", "users", "users_without_window", "ties", "skipped", "negatives_rejected",
               "values_true_of_positive_kept_out",
               "excluded_values", "eligible_rules", "targets_in_artifact", "dropped_same_text",
               "negatives_rejected_same_text", "skipped_too_few_negatives", "targets_tried", "short", "gold_sources")


def _slot_sequences(dataset: str, questions: dict[str, tuple[str, list[dict]]]) -> dict:
    return {f"{dataset}/{m}": ([q["answer_index"] for q in qs], len(qs[0]["candidates"]) if qs else 1)
            for m, (_, qs) in questions.items()}


def audit_dataset(dataset: str, domain: str, questions: dict[str, tuple[str, list[dict]]],
                  prompts: list[tuple[str, str, list[dict]]], reports: dict[str, dict], interactions: pd.DataFrame,
                  items: pd.DataFrame, ingest_report: dict, artifacts: dict[str, pd.DataFrame] | None = None,
                  facts: pd.DataFrame | None = None,
                  raw_facts: pd.DataFrame | None = None) -> tuple[dict, list[checks.Violation]]:
    """`questions`: measure -> (path, records); `prompts`: (path, measure, records) per prompt file;
    `reports`: measure -> question report; `artifacts`: ground-truth artifact name -> table (the
    HitRate@1 golds are re-derived from them); `facts`: the ingest's facts table (the knowledge
    golds are re-read from it); `raw_facts`: the facts table made again from the raw data and
    metadata files the config names (the knowledge golds re-derived from them: a value written
    into both items.parquet and facts.parquet fails here). Returns (audit, violations)."""
    violations: list[checks.Violation] = []
    checked = Counter()
    known = checks.Known(interactions, [q for _, qs in questions.values() for q in qs])
    works = item_keys(items) if {"title", "year"} <= set(items.columns) else None
    evidence = golds.Evidence(interactions, artifacts, {m: qs for m, (_, qs) in questions.items()})
    by_qid = {}
    per_measure = {}
    for m, (path, qs) in sorted(questions.items()):
        field = measures.get(domain, m).field
        truths = checks.field_keys(items, field) if field in items.columns else None
        witnessed, raw = _field_witnesses(field, qs, facts, raw_facts)
        violations += _question_violations(path, qs, known, truths, works, evidence, witnessed, raw)
        by_qid.update((q["qid"], q) for q in qs)
        checked["questions"] += len(qs)
        uni, not_uniform = _slot_uniformity(domain, m, path, qs)
        violations += not_uniform
        per_measure[m] = _measure_entry(path, qs, uni, reports.get(m, {}))
    for path, measure, ps in prompts:
        violations += _prompt_file_violations(path, measure, ps, questions, by_qid)
        checked["prompts"] += len(ps)
    equal, compared = slots.equal_sequences(_slot_sequences(dataset, questions))
    violations += [checks.Violation(questions[b.split("/", 1)[1]][0], "(all questions)", "equal_slot_sequences",
                                    f"{a} and {b} put their answers in the same slots") for a, b in equal]
    audit = {
        "dataset": dataset, "domain": domain,
        "passed": not violations, "violations": len(violations),
        "checks": list(checks.CHECKS), "checked": dict(checked),
        "slot_rule": {"alpha": slots.ALPHA, "min_n": slots.MIN_N, "equal_by_chance_below": slots.CHANCE},
        "measures": per_measure,
        "equal_slot_sequences": {"equal_pairs": [list(p) for p in equal], **compared},
        **_ingest_summary(ingest_report),
    }
    return audit, violations


def _field_witnesses(field: str | None, qs: list[dict], facts: pd.DataFrame | None,
                     raw_facts: pd.DataFrame | None) -> tuple[checks.Witnessed | None, checks.Witnessed | None]:
    """(ingest's, raw data's) witnesses of a knowledge field's golds; None where the measure's
    candidates are not values, or no facts table covers the field."""
    values = bool(field and qs and qs[0].get("candidate_kind") == "value")
    witnessed = (checks.Witnessed(facts, field) if values and facts is not None
                 and (facts["field"] == field).any() else None)
    raw = checks.Witnessed(raw_facts, field, checks.Witnessed.RAW) if values and raw_facts is not None else None
    return witnessed, raw


def _answer_in_range(q: dict) -> bool:
    return isinstance(q.get("answer_index"), int) and 0 <= q["answer_index"] < len(q["candidates"])


def _question_violations(path: str, qs: list[dict], known: checks.Known, truths, works, evidence: golds.Evidence,
                         witnessed: checks.Witnessed | None, raw: checks.Witnessed | None) -> list[checks.Violation]:
    """Every question check of one measure's file, each question's raw-data gold check right after its own."""
    violations: list[checks.Violation] = []
    for q in qs:
        violations += checks.question_checks(path, q, known, truths, works, evidence, witnessed)
        if raw is not None and _answer_in_range(q):
            violations += raw.violations(path, q)
    return violations


def _slot_uniformity(domain: str, m: str, path: str, qs: list[dict]) -> tuple[dict, list[checks.Violation]]:
    """The answer slots' chi-square verdict of one measure, and its violation when it fails."""
    k = len(qs[0]["candidates"]) if qs else measures.get(domain, m).n_candidates
    uni = slots.uniformity([q["answer_index"] for q in qs], k)
    if uni["verdict"] != "fail":
        return uni, []
    return uni, [checks.Violation(path, "(all questions)", "slot_uniformity",
                                  f"answer slots {uni['counts']} over {uni['n']} questions: "
                                  f"chi-square p = {uni['p']:.2g} < {slots.ALPHA}")]


def _measure_entry(path: str, qs: list[dict], uni: dict, rep: dict) -> dict:
    """A measure's line in the audit: its file, counts, slot verdict and its question report's counts."""
    return {"file": path, "questions": len(qs), "slots": uni,
            "tied_positives": sum(bool(q.get("tied_positive")) for q in qs),
            **{key: rep[key] for key in REPORT_KEYS if key in rep}}


def _prompt_file_violations(path: str, measure: str, ps: list[dict], questions: dict[str, tuple[str, list[dict]]],
                            by_qid: dict[str, dict]) -> list[checks.Violation]:
    """Every prompt checked against its question, then each question of the measure left without a prompt."""
    violations: list[checks.Violation] = []
    seen = set()
    for p in ps:
        violations += checks.prompt_checks(path, p, by_qid.get(p.get("qid")))
        seen.add(p.get("qid"))
    if measure in questions:
        for q in questions[measure][1]:
            if q["qid"] not in seen:
                violations.append(checks.Violation(path, q["qid"], "prompt_disagrees_with_question",
                                                   "the question has no prompt"))
    return violations


def _ingest_summary(ingest_report: dict) -> dict:
    """What the ingest report says of titles, merged works, knowledge facts and counts."""
    return {
        "titles": ingest_report.get("display_titles"),
        # the items merged as one work, each group with its basis (ingest's same_work_merged)
        "works": {k: v for k, v in (ingest_report.get("same_work_merged") or {}).items()
                  if k in ("groups", "items_merged", "by", "merged", "kept_apart_external_ids_differ",
                           "damaged_titles_not_merged")},
        # which sources back each knowledge field and how often two covering sources agree
        "facts": {f: {k: r[k] for k in ("sources", "witnesses", "agreement", "dropped") if k in r}
                  for f, r in ((ingest_report.get("facts") or {}).get("fields") or {}).items()},
        "ingest": {k: ingest_report[k] for k in ("interactions", "duplicates_dropped", "users", "items")
                   if k in ingest_report},
    }


def audit_all(sequences_by_dataset: dict[str, dict[str, tuple[str, list[dict]]]]) -> tuple[dict, list]:
    """Equal slot sequences between datasets: dataset -> measure -> (path, question records)."""
    seqs, paths = {}, {}
    for ds, questions in sequences_by_dataset.items():
        seqs.update(_slot_sequences(ds, questions))
        paths.update({f"{ds}/{m}": p for m, (p, _) in questions.items()})
    equal, compared = slots.equal_sequences(seqs)
    equal = [(a, b) for a, b in equal if a.split("/", 1)[0] != b.split("/", 1)[0]]
    violations = [checks.Violation(paths[b], "(all questions)", "equal_slot_sequences",
                                   f"{a} and {b} put their answers in the same slots") for a, b in equal]
    return {"datasets": sorted(sequences_by_dataset), "passed": not violations,
            "equal_pairs": [list(p) for p in equal], **compared}, violations


def _sum(v) -> int:
    return sum(v.values()) if isinstance(v, dict) else int(v or 0)


def to_markdown(audit: dict) -> str:
    lines = [f"# Audit of `{audit['dataset']}`", "",
             f"All {len(audit['checks'])} checks passed on {audit['checked'].get('questions', 0)} questions and "
             f"{audit['checked'].get('prompts', 0)} prompts." if audit["passed"] else
             f"{audit['violations']} violations.", "",
             f"Slots: chi-square against uniform per measure, a failure at p < {audit['slot_rule']['alpha']} "
             f"once n >= {audit['slot_rule']['min_n']}; slot sequences of measures compared pairwise "
             f"({audit['equal_slot_sequences']['pairs_compared']} pairs compared, "
             f"{audit['equal_slot_sequences']['pairs_too_short']} too short to tell from chance).", "",
             "| measure | questions | answers per slot | chi-square p | verdict | tied positives | users dropped "
             "| excluded values | negative draws rejected | skipped |",
             "|---|---:|---|---:|---|---:|---:|---:|---:|---:|"]
    for m, r in audit["measures"].items():
        s = r["slots"]
        p = "" if s["p"] is None else f"{s['p']:.3f}"
        ties = r.get("ties") or {}
        excluded = (r.get("excluded_values") or {}).get("item_values_removed", {})
        rejected = _sum(r.get("negatives_rejected")) + _sum(r.get("negatives_rejected_same_text"))
        skipped = _sum(r.get("skipped")) + _sum(r.get("dropped_same_text")) + _sum(r.get("skipped_too_few_negatives"))
        mark = (shortfall.MARK if r.get("short") else "") + (
            witnesses.MARK if (r.get("gold_sources") or {}).get("single_source") else "")
        lines.append(f"| {m}{mark} | {r['questions']} | {' '.join(map(str, s['counts']))} | {p} | {s['verdict']} | "
                     f"{r['tied_positives']} | {ties.get('users_dropped', 0)} | {_sum(excluded)} | {rejected} | "
                     f"{skipped} |")
    # § short measures and ‡ the sources behind each knowledge measure's golds, as the tables say
    short = {m: r["short"]["reason"] for m, r in audit["measures"].items() if (r.get("short") or {}).get("reason")}
    backed = {m: r["gold_sources"] for m, r in audit["measures"].items() if r.get("gold_sources")}
    lines += [x for line in shortfall.notes(short) + witnesses.notes(backed) for x in ("", line)]
    w = audit.get("works") or {}
    if w:
        by = ", ".join(f"{n} by {k}" for k, n in (w.get("by") or {}).items())
        lines += ["", f"Works: {w.get('groups', 0)} groups of ids merged as one work" + (f" ({by})" if by else "")
                  + f"; {len(w.get('kept_apart_external_ids_differ') or [])} title + year groups kept apart by their "
                  f"external ids; {w.get('damaged_titles_not_merged', 0)} damaged titles never merged. Every group: "
                  "the audit json's `works.merged`."]
    for f, r in (audit.get("facts") or {}).items():
        pairs = "; ".join(f"{p.replace('|', ' and ')} agree on {a['agree']} of {a['both']} films"
                          for p, a in (r.get("agreement") or {}).items())
        lines += ["", f"Facts `{f}`: sources {', '.join(r['sources'])}; witnesses per item {r['witnesses']}"
                  + (f"; {pairs}, {r.get('dropped', 0)} dropped" if pairs else "") + "."]
    t = audit.get("titles")
    if t:
        examples = f" (e.g. {'; '.join(t['examples'][:2])})" if t["examples"] else ""
        lines += ["", f"Titles: {t['rewritten']} of {t['titles']} rewritten to the display form{examples}."]
    return "\n".join(lines) + "\n"
