"""The experiments the LRWorld paper ran: per model, which (dataset, measure, variant) it answered,
read from the figures it printed (figures.tsv), so that the paper's run is the sum of its tables.

- zero-shot: every model row of Tables 2, 3, 22 (and the same runs in 5, 8, 23, 25), per measure;
- noisy: Table 23's `score_noisy` rows (Amazon, 8 measures, 5 models);
- shuffle1..shuffle5: Tables 6 and 11's means over five answer orders (MovieLens, 3 measures);
- cot and kshot: §5.4 on the text factor of Netflix for five models, whose figures are in its
  Figure 5, an image with no printed values (`UNPRINTED`);
- Table 4 (LlaVA-1.6 shown the image itself) changes the model's input, not the prompt: no variant.

A model's prompts are the paper's question counts summed over its (dataset, measure, variant) runs.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache

from lrworld.paper import figures as P
from lrworld.prompts.variants import kind

SHUFFLES = tuple(f"shuffle{s}" for s in range(1, 6))
# printed figure -> the variants of the run that made it
ZERO_SHOT_TABLES = {"2", "3", "22", "5", "8", "23", "25"}
SHUFFLE_TABLES = {"6", "11"}
SHUFFLE_DATASET = "movielens"  # Table 11's caption: "on the LRWorld (MovieLens) Dataset"; Table 6 repeats it
# §5.4: "on the factor of text knowledge reasoning ... evaluated on the LRWorld-Netflix dataset are
# shown in Fig 5"; its five models are named there (llama3-8B, qwen2-7B, llama3-70B, qwen2-72B) and
# in the introduction (GPT-4o-mini)
# in the introduction (GPT-4o-mini); each beside its zero-shot figure (k = 0)
UNPRINTED = {("netflix", "text_logline", v): ("Llama-3", "Qwen-2", "Llama3-70B", "Qwen2-72B", "GPT-4o-mini")
             for v in ("zero_shot", "cot", "kshot")}


def _variants(row: dict) -> tuple[str, ...]:
    table, metric = row["paper_table"], row["metric"]
    if table in ZERO_SHOT_TABLES and metric == "score":
        return ("zero_shot",)
    if table == "23" and metric == "score_noisy":
        return ("noisy",)
    if table in SHUFFLE_TABLES and metric == "mean_x100":
        return SHUFFLES
    return ()


@cache
def runs() -> dict[str, frozenset[tuple[str, str, str]]]:
    """{paper model: its (paper dataset, measure, variant) runs}; RANDOM (an expectation) is not one."""
    out: dict[str, set] = defaultdict(set)
    for r in P.figures():
        if r["model"] in P.models():
            dataset = SHUFFLE_DATASET if r["paper_table"] in SHUFFLE_TABLES else r["dataset"]
            out[r["model"]].update((dataset, r["measure"], v) for v in _variants(r))
    for cell, models in UNPRINTED.items():
        for m in models:
            out[m].add(cell)
    return {m: frozenset(cells) for m, cells in out.items() if cells}


def prompts_per_model() -> dict[str, int]:
    """{paper model: the prompts its runs asked}, at the paper's question counts."""
    return {m: sum(per.values()) for m, per in prompts_per_experiment().items()}


def prompts_per_experiment() -> dict[str, dict[str, int]]:
    """{paper model: {experiment (a variant's kind: zero_shot, noisy, shuffle, cot, kshot): the
    prompts its runs of it asked}}, at the paper's question counts."""
    counts = P.question_counts()
    out: dict[str, dict[str, int]] = {}
    for m, cells in sorted(runs().items()):
        per = out.setdefault(m, {})
        for d, meas, v in sorted(cells):
            per[kind(v)] = per.get(kind(v), 0) + counts[d][meas]
    return out


def variants_per_measure() -> dict[tuple[str, str], tuple[str, ...]]:
    """{(paper dataset, measure): the variants any model ran on it}, zero_shot first."""
    out: dict[tuple[str, str], set] = defaultdict(set)
    for cells in runs().values():
        for d, meas, v in cells:
            out[(d, meas)].add(v)
    return {k: tuple(sorted(v, key=lambda x: (x != "zero_shot", x))) for k, v in sorted(out.items())}
