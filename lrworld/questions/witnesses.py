"""How many sources back a knowledge measure's golds, read from its question report's `facts`
block: the share of golds one source gives and the share two or more agree on, and which sources.

A gold with one witness has been checked by nothing but its source (HetRec names "Philip Jackson"
for Blade Runner): every table, CSV, report card, report caption and release card says so, in the
words of `describe`, under the mark `MARK`."""

from __future__ import annotations

MARK = "\u2021"  # double dagger: † marks a degenerate cell, § a short measure
# skip reasons of a knowledge builder that are a gold dropped for its witnesses (facts.min_witnesses,
# facts.require_agreement)
DROP_REASONS = ("sources_disagree", "single_source")


def summary(report: dict) -> dict | None:
    """{questions, single_source, two_or_more, single_source_share, sources, dropped} of a knowledge
    measure's question report; None for a measure whose golds come from no metadata source."""
    facts = report.get("facts")
    if not isinstance(facts, dict):
        return None
    counts = {int(k): int(v) for k, v in (facts.get("witnesses") or {}).items()}
    n = sum(counts.values())
    if not n:
        return None
    single = counts.get(1, 0)
    sources = sorted({s for key in facts.get("sources") or {} for s in key.split("+") if s})
    skipped = report.get("skipped") or {}
    return {"questions": n, "single_source": single, "two_or_more": n - single,
            "single_source_share": round(single / n, 4), "sources": sources,
            "dropped": {r: int(skipped[r]) for r in DROP_REASONS if skipped.get(r)}}


def _percent(part: int, n: int) -> str:
    if part in (0, n):
        return f"{part / n:.0%}"
    # never "100%" or "0%" for a share that is neither
    return f"{min(max(part / n, 0.01), 0.99):.0%}"


def describe(s: dict) -> str:
    """'100% single-source (hetrec_directors)' or '4% single-source, 96% two or more sources (...)'."""
    n, single = s["questions"], s["single_source"]
    if single == n:
        text = "100% single-source"
    elif single == 0:
        text = "100% backed by two or more sources"
    else:
        text = f"{_percent(single, n)} single-source, {_percent(n - single, n)} backed by two or more sources"
    text += f" ({', '.join(s['sources']) or 'the dataset'})"
    if s.get("dropped"):
        text += "; golds dropped: " + ", ".join(f"{r} {k}" for r, k in s["dropped"].items())
    return text


def notes(summaries: dict[str, dict]) -> list[str]:
    """One caption line for the knowledge measures of a table, `MARK` first."""
    if not summaries:
        return []
    return [f"{MARK} sources per gold (knowledge measures; a single-source gold is checked by no second "
            "source): " + "; ".join(f"{m}: {describe(s)}" for m, s in sorted(summaries.items())) + "."]


def from_reports(reports) -> dict[str, dict]:
    """measure -> summary of every knowledge measure among the question reports."""
    return {r["measure"]: s for r in reports if (s := summary(r)) is not None}
