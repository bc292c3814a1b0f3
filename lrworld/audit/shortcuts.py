"""Can a measure be passed without the knowledge it tests? Every shortcut answerer
(lrworld/models/shortcut.py) answers each measure's zero-shot prompts here, before any model runs,
and the audit reports its score with a Wilson interval; a finding is a shortcut whose interval lies
above chance (1 / options). Beside it, what the golds are made of: how many distinct entities, the
largest share one of them takes, their entropy, and the gold's popularity against the
distractors'. `audit.shortcuts` (warn | fail) says whether a finding stops the build
(docs/audit.md)."""

from __future__ import annotations

import math
from collections import Counter
from statistics import median

from lrworld.models.base import PromptItem
from lrworld.models.shortcut import pick, shortcuts
from lrworld.questions import measures
from lrworld.questions.learned import wilson  # noqa: F401 (one interval for every control; tests import it here)

CONFIDENCE = 0.95
BASE_VARIANT = "zero_shot"


def item_of(p: dict) -> PromptItem:
    """The prompt record as the answer stage hands it to a backend."""
    return PromptItem(qid=p["qid"], prompt=p["prompt"], labels=tuple(p.get("labels", ())),
                      candidates=tuple(p.get("candidates", ())), option_signals=p.get("option_signals"))


def scores(prompts: list[dict], seed: int = 0, confidence: float = CONFIDENCE) -> dict[str, dict]:
    """Per shortcut: {correct, n, score, ci_low, ci_high, chance, above_chance} over the prompts."""
    items = [item_of(p) for p in prompts if p.get("labels")]
    if not items:
        return {}
    answers = [p["answer_index"] for p in prompts if p.get("labels")]
    chance = sum(1 / len(i.labels) for i in items) / len(items)
    out = {}
    for name in shortcuts().names():
        k = sum(pick(name, it, seed) == a for it, a in zip(items, answers))
        lo, hi = wilson(k, len(items), confidence)
        out[name] = {"correct": k, "n": len(items), "score": round(k / len(items), 4), "ci_low": round(lo, 4),
                     "ci_high": round(hi, 4), "chance": round(chance, 4), "above_chance": lo > chance}
    return out


def gold_distribution(questions: list[dict]) -> dict:
    """Distinct golds, the largest share one entity takes (and which), the golds' entropy in bits
    (log2 of the question count when every gold differs), and the median popularity of golds and of
    distractors where the questions carry it (lrworld/questions/signals.py)."""
    golds = Counter(str(q["candidates"][q["answer_index"]]) for q in questions)
    n = sum(golds.values())
    if not n:
        return {}
    top, top_n = golds.most_common(1)[0]
    out = {"distinct_golds": len(golds), "largest_share": round(top_n / n, 4), "largest_gold": top,
           "entropy_bits": round(-sum(c / n * math.log2(c / n) for c in golds.values()), 3),
           "entropy_max_bits": round(math.log2(n), 3)}
    pops = [(q["signals"]["popularity"], str(q["candidates"][q["answer_index"]])) for q in questions
            if (q.get("signals") or {}).get("popularity")]
    if pops:
        gold_pop = [p[g] for p, g in pops]
        other = [v for p, g in pops for c, v in p.items() if c != g]
        out["popularity"] = {"gold_median": median(gold_pop), "distractor_median": median(other) if other else None}
    return out


def audit(questions: dict[str, tuple[str, list[dict]]], prompts: list[tuple[str, str, list[dict]]],
          seed: int = 0) -> dict[str, dict]:
    """measure -> {shortcuts, golds, findings}: `prompts` (path, measure, records) per prompt file,
    the zero-shot file of each measure scored (the first variant's where it has none)."""
    by_measure: dict[str, list[dict]] = {}
    for path, measure, recs in sorted(prompts, key=lambda t: t[0].rsplit("/", 1)[-1] != f"{BASE_VARIANT}.jsonl"):
        by_measure.setdefault(measure, recs)
    out = {}
    for m, (_, qs) in sorted(questions.items()):
        s = scores(by_measure.get(m, []), seed)
        for name in own_signal(m):
            if name in s:
                s[name]["own_signal"] = True
        out[m] = {"shortcuts": s, "golds": gold_distribution(qs),
                  "findings": sorted(name for name, r in s.items() if r["above_chance"] and not r.get("own_signal"))}
    return out


def own_signal(measure: str) -> list[str]:
    """The shortcuts that read only signals the measure declares its own (`Measure.own_signals`):
    answering by them is using the knowledge the measure tests, so above chance is no finding."""
    declared = set(measures.by_id(measure).own_signals) if measure in measures.REGISTRY else set()
    return [name for name, s in shortcuts().items() if s.reads and set(s.reads) <= declared]


def finding_lines(dataset: str, result: dict[str, dict]) -> list[str]:
    """One line per (measure, shortcut) whose interval lies above chance."""
    return [f"{dataset}/{m}: the shortcut {name} answers {r['shortcuts'][name]['correct']} of "
            f"{r['shortcuts'][name]['n']} ({r['shortcuts'][name]['score']:.2f} "
            f"[{r['shortcuts'][name]['ci_low']:.2f}, {r['shortcuts'][name]['ci_high']:.2f}]) against chance "
            f"{r['shortcuts'][name]['chance']:.2f}: the measure can be passed without its knowledge"
            for m, r in result.items() for name in r["findings"]]


def to_markdown(result: dict[str, dict]) -> str:
    """The audit report's shortcut section: a score per (measure, shortcut), `!` above chance."""
    names = shortcuts().names()
    lines = ["## Shortcuts", "",
             f"Knowledge-free answerers on each measure's zero-shot prompts, score [{CONFIDENCE:.0%} Wilson interval]; "
             "`!`: the interval lies above chance (docs/audit.md); `=`: the shortcut reads the measure's own "
             "signal, its score is no finding.", "",
             "| measure | chance | " + " | ".join(names) + " | distinct golds | largest share | entropy (bits) "
             "| popularity gold / distractor |",
             "|---|---:|" + "---:|" * len(names) + "---:|---:|---:|---|"]
    for m, r in result.items():
        s, g = r["shortcuts"], r["golds"]
        chance = next(iter(s.values()))["chance"] if s else None
        cells = [f"{s[n]['score']:.2f} [{s[n]['ci_low']:.2f}, {s[n]['ci_high']:.2f}]"
                 + (" =" if s[n].get("own_signal") else " !" if s[n]["above_chance"] else "")
                 if n in s else "" for n in names]
        pop = g.get("popularity") or {}
        lines.append(f"| {m} | {'' if chance is None else f'{chance:.2f}'} | " + " | ".join(cells)
                     + f" | {g.get('distinct_golds', '')} | {g.get('largest_share', '')} | {g.get('entropy_bits', '')} | "
                     + (f"{pop['gold_median']} / {pop['distractor_median']}" if pop else "") + " |")
    return "\n".join(lines) + "\n"


def found(audit_json: dict) -> dict[str, list[str]]:
    """measure -> the shortcuts above chance on it, from a dataset's audit json."""
    return {m: r["findings"] for m, r in ((audit_json.get("shortcuts") or {}).get("measures") or {}).items()
            if r.get("findings")}
