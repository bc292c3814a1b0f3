"""The experiments the LRWorld paper ran: per model, which (dataset, measure, variant) it answered,
read from the figures it printed (figures.tsv) and, for the runs its figures show only as images,
from `image_runs.tsv`, so that the paper's run is the sum of its tables and figures.

- zero-shot: every model row of Tables 2, 3, 22 (and the same runs in 5, 8, 23, 25, and Table 4's
  "Image's text desc Only", which is Tables 2, 3 and 22's multimodal cell), per measure;
- noisy: Table 23's `score_noisy` rows (Amazon, 8 measures, 5 models);
- shuffle1..shuffle5: Tables 6 and 11's means over five answer orders (MovieLens, 3 measures);
- visual: Table 4's "Image's text desc + Visual", LlaVA-1.6 shown the latest history item's image
  besides the prompt, on the multimodal measure of each dataset;
- cot and kshot: §5.4 on Netflix's text measure (Figure 5) and its memory-based user-user measure
  (Figure 9), images with no printed values (`image_runs.tsv`). `kshot` is the k-shot series: the
  paper plots a curve over k ("peaks at k=3") without printing k, so its k are the caller's
  (`ks`; config `analysis.kshot.series`).

A model's prompts are the paper's question counts summed over its (dataset, measure, variant) runs.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from functools import cache

from lrworld.paper import figures as P
from lrworld.prompts.variants import kind

SHUFFLES = tuple(f"shuffle{s}" for s in range(1, 6))
# printed figure (table, metric) -> the variants of the run that made it
PRINTED = {**{(t, "score"): ("zero_shot",) for t in ("2", "3", "22", "5", "8", "23", "25")},
           ("4", "score_text_only"): ("zero_shot",),
           ("23", "score_noisy"): ("noisy",),
           ("4", "score_text_visual"): ("visual",),
           ("6", "mean_x100"): SHUFFLES, ("11", "mean_x100"): SHUFFLES}
# a variant kind -> the (table, metric) that prints its figure beside the zero-shot one, and how
# many of its variants the figure is the mean of (the comparison tables' ablation cells)
PRINTED_BY_KIND = {"noisy": ("23", "score_noisy", 1), "visual": ("4", "score_text_visual", 1),
                   "shuffle": ("6", "mean_x100", len(SHUFFLES))}
KSHOT_SERIES = "kshot"  # image_runs.tsv's name for the k-shot series


@cache
def image_runs() -> tuple[dict, ...]:
    """The runs shown only in figures that are images: {figure, dataset, measure, variants, models}."""
    with open(P.HERE / "image_runs.tsv", newline="", encoding="utf-8") as f:
        return tuple({**r, "variants": tuple(r["variants"].split()), "models": tuple(r["models"].split())}
                     for r in csv.DictReader(f, delimiter="\t"))


def expand(variant: str, ks: tuple[int, ...] = ()) -> tuple[str, ...]:
    """A variant of the paper's runs as the variants asked: the k-shot series as `kshot<k>` per k
    in `ks` (none given: plain `kshot`, k = analysis.kshot.k)."""
    if variant == KSHOT_SERIES and ks:
        return tuple(f"kshot{k}" for k in ks)
    return (variant,)


@cache
def runs(ks: tuple[int, ...] = ()) -> dict[str, frozenset[tuple[str, str, str]]]:
    """{paper model: its (paper dataset, measure, variant) runs}; RANDOM (an expectation) is not one.
    `ks`: the k of the k-shot series (`expand`)."""
    out: dict[str, set] = defaultdict(set)
    for r in P.figures():
        if r["model"] in P.models():
            out[r["model"]].update((r["dataset"], r["measure"], v)
                                   for v in PRINTED.get((r["paper_table"], r["metric"]), ()))
    for run in image_runs():
        for m in run["models"]:
            out[m].update((run["dataset"], run["measure"], v) for vs in run["variants"] for v in expand(vs, ks))
    return {m: frozenset(cells) for m, cells in out.items() if cells}


def model_runs(paper_name: str, paper_dataset: str | None, ks: tuple[int, ...] = ()) -> dict[str, list[str]]:
    """{measure: the variants the paper's `paper_name` row ran on it} on one of its datasets,
    zero_shot first: the one definition the plan, the rules and the comparison tables read."""
    out: dict[str, set] = defaultdict(set)
    for d, meas, v in runs(tuple(ks)).get(paper_name, ()):
        if d == paper_dataset:
            out[meas].add(v)
    return {m: sorted(vs, key=_order) for m, vs in out.items()}


def _order(v: str) -> tuple:
    return v != "zero_shot", kind(v), len(v), v  # kshot2 before kshot10


def prompts_per_model(ks: tuple[int, ...] = ()) -> dict[str, int]:
    """{paper model: the prompts its runs asked}, at the paper's question counts."""
    return {m: sum(per.values()) for m, per in prompts_per_experiment(ks).items()}


def prompts_per_experiment(ks: tuple[int, ...] = ()) -> dict[str, dict[str, int]]:
    """{paper model: {experiment (a variant's kind: zero_shot, noisy, shuffle, visual, cot, kshot):
    the prompts its runs of it asked}}, at the paper's question counts."""
    counts = P.question_counts()
    out: dict[str, dict[str, int]] = {}
    for m, cells in sorted(runs(tuple(ks)).items()):
        per = out.setdefault(m, {})
        for d, meas, v in sorted(cells):
            per[kind(v)] = per.get(kind(v), 0) + counts[d][meas]
    return out


def variants_per_measure(ks: tuple[int, ...] = ()) -> dict[tuple[str, str], tuple[str, ...]]:
    """{(paper dataset, measure): the variants any model ran on it}, zero_shot first."""
    out: dict[tuple[str, str], set] = defaultdict(set)
    for cells in runs(tuple(ks)).values():
        for d, meas, v in cells:
            out[(d, meas)].add(v)
    return {k: tuple(sorted(v, key=_order)) for k, v in sorted(out.items())}


def printed_figure(paper_dataset: str, paper_name: str, measure: str, variant_kind: str) -> tuple[str, float] | None:
    """(the table, the paper's figure on the 0-1 scale) of an ablation cell the paper printed (noisy,
    visual, the mean over the shuffles), or None."""
    if variant_kind not in PRINTED_BY_KIND:
        return None
    table, metric, _ = PRINTED_BY_KIND[variant_kind]
    value = next((r["value"] for r in P.figures() if (r["paper_table"], r["dataset"], r["model"], r["measure"],
                  r["metric"]) == (table, paper_dataset, paper_name, measure, metric)), None)
    if value is None:
        return None
    return table, value / 100 if metric.endswith("_x100") else value
