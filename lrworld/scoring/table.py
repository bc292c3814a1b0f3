"""Results tables laid out like the paper's Table 3: one row per model (RANDOM first), one column
per measure in the registry's order, each cell the measure's primary metric.

Beside each value: its n and 95% interval (percentile bootstrap over the cell's
questions) and the paired bootstrap difference to RANDOM on the same questions (`*` where its
interval excludes 0). Both come from `lrworld.analysis.scores` with the same seeds, so they equal
`results/analysis/<ds>/tables/scores.csv` and the model-vs-random rows of `paired.csv`. Also
`<column>_degenerate` (the model chose one slot for 80% of the questions or more;
marked †) and `<column>_debiased` (the position-debiased figure: the score's PriDe prior
correction in choice mode, else the mean over the cell's answer orders, zero_shot and every
shuffle<s> variant, when shuffle variants exist).

The .md shows `0.26 [0.14, 0.38]` with the column's primary metric and n in the first row, the
.csv one column per figure (`<column>_n`, `_ci_low`, ...), the .tex the .md's cells in booktabs.
"""

from __future__ import annotations

import re

import pandas as pd

from lrworld.analysis.output import factor_groups, to_latex
from lrworld.analysis.scores import paired_table, score_table
from lrworld.core.markdown import pipe_table
from lrworld.prompts.variants import column_name
from lrworld.audit import validity
from lrworld.questions import measures, shortfall
from lrworld.questions import witnesses as golds

DAGGER = "\u2020"
RANDOM = "random"
SIGNIFICANT = "*"
METRIC_LABEL = {"accuracy": "Accuracy", "hit_ratio_at_1": "HitRate@1"}
# the .csv's figures beside each value column, in this order (suffixes of `<column>_`)
FIGURES = ("degenerate", "debiased", "n", "ci_low", "ci_high", "diff_vs_random", "p_vs_random",
           "significant_vs_random")
# the .csv's figures of a measure (the same on every row): the questions asked for, why it has fewer
# (short measures, §), the share of its golds one source alone gives and the sources (knowledge, ‡)
MEASURE_FIGURES = ("requested", "short_reason", "single_source_share", "gold_sources", *validity.CSV_FIGURES)
# the reference row of the learned knowledge-free answerer (the audit's, cross-validated by question)
LEARNED_ROW = "learned-knowledge-free"
_ORDERS = re.compile(r"^(zero_shot|shuffle\d+)$")


def results_table(scores: list[dict], domain: str, models: list[str]) -> pd.DataFrame:
    order = measures.measure_ids(domain)
    variants = sorted({s["variant"] for s in scores}, key=lambda v: (v != "zero_shot", v))
    cols = [column_name(m, v) for v in variants for m in order
            if any(s["measure"] == m and s["variant"] == v for s in scores)]
    rows = sorted(models, key=lambda m: (m != "random", models.index(m)))
    table = pd.DataFrame({"model": rows})
    for c in cols:
        table[c] = float("nan")
    for s in scores:
        table.loc[table["model"] == s["model"], column_name(s["measure"], s["variant"])] = s["value"]
    return table


def _debiased(s: dict, scores: list[dict]) -> float | None:
    if s.get("debiased") is not None:
        return s["debiased"]
    orders = [o["value"] for o in scores if o["model"] == s["model"] and o["measure"] == s["measure"]
              and _ORDERS.match(o["variant"])] if _ORDERS.match(s["variant"]) else []
    if len(orders) > 1:
        return sum(orders) / len(orders)
    # a uniform pick has no position prior to remove: with one order, its debiased figure is its score
    return s["value"] if s["model"] == RANDOM else None


def spread(table: pd.DataFrame, records, field: str, empty=float("nan")) -> pd.DataFrame:
    """One figure of each (model, measure, variant) record, shaped like `table` (model column first)."""
    cols = list(table.columns[1:])
    out = pd.DataFrame({"model": table["model"], **{c: empty for c in cols}}, dtype=object)
    for r in records:
        row, col = table["model"] == r["model"], column_name(r["measure"], r["variant"])
        if col in cols:
            out.loc[row, col] = r[field]
    return out


def marks(scores: list[dict], table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(degenerate flags, debiased figures), both shaped like `table` (model column first)."""
    flags = [{**s, "degenerate": bool(s.get("degenerate", False))} for s in scores]
    debiased = [{**s, "debiased": _debiased(s, scores)} for s in scores]
    deb = spread(table, [d for d in debiased if d["debiased"] is not None], "debiased")
    return spread(table, flags, "degenerate", False).infer_objects(), deb.astype({c: float for c in deb.columns[1:]})


def uncertainty(frame: pd.DataFrame, models: list[str], n_boot: int, confidence: float, seed: int) -> pd.DataFrame:
    """Per (model, measure, variant) of `frame` (`lrworld.analysis.load.responses_frame`): n, the
    bootstrap interval, and the paired difference to RANDOM on the same questions (none for RANDOM,
    or without a RANDOM row)."""
    keys = ["model", "measure", "variant"]
    out = score_table(frame, n_boot, confidence, seed)[keys + ["n", "ci_low", "ci_high"]]
    paired = paired_table(frame, models, n_boot, confidence, seed) if "random" in models else pd.DataFrame()
    if not paired.empty:
        paired = paired[(paired["kind"] == "model") & (paired["b"] == "random")].rename(columns={
            "a": "model", "diff": "diff_vs_random", "p_value": "p_vs_random", "significant": "significant_vs_random"})
        out = out.merge(paired[keys + ["diff_vs_random", "p_vs_random", "significant_vs_random"]], on=keys, how="left")
    else:
        out = out.assign(diff_vs_random=float("nan"), p_vs_random=float("nan"), significant_vs_random=None)
    return out


def figures(scores: list[dict], table: pd.DataFrame, stats: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every figure of FIGURES, shaped like `table`."""
    degenerate, debiased = marks(scores, table)
    recs = stats.to_dict("records")
    out = {"degenerate": degenerate, "debiased": debiased}
    for f, dtype in (("n", "Int64"), ("ci_low", float), ("ci_high", float), ("diff_vs_random", float),
                     ("p_vs_random", float), ("significant_vs_random", "boolean")):
        wide = spread(table, [r for r in recs if not _missing(r[f])], f, None)
        out[f] = wide.astype({c: dtype for c in wide.columns[1:]})
    return out


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and v != v)


def with_marks(table: pd.DataFrame, figs: dict[str, pd.DataFrame], reports: list[dict] | None = None,
               audit: dict | None = None) -> pd.DataFrame:
    """The .csv layout: the value columns, then `<column>_<figure>` for each figure of FIGURES given,
    then, with the question `reports`, each column's MEASURE_FIGURES (its validity controls from the
    dataset's `audit` json)."""
    cols = list(table.columns[1:])
    parts = [table] + [figs[f][cols].add_suffix(f"_{f}") for f in FIGURES if f in figs]
    if reports is not None:
        parts.append(measure_figures(table, reports, audit))
    return pd.concat(parts, axis=1)


def with_learned(table: pd.DataFrame, figs: dict[str, pd.DataFrame], audit: dict | None) -> tuple[pd.DataFrame, dict]:
    """The table and its figures with the learned knowledge-free answerer's row after RANDOM's (its
    score, n and Wilson interval on each measure's zero-shot column, from the `audit` json)."""
    learned = validity.learned_row(audit or {})
    if not learned:
        return table, figs
    at = 1 if len(table) and table["model"].iat[0] == RANDOM else 0

    def insert(df: pd.DataFrame, values: dict) -> pd.DataFrame:
        row = pd.DataFrame([{"model": LEARNED_ROW, **values}], columns=df.columns)
        return pd.concat([df.iloc[:at], row.astype(df.dtypes.to_dict(), errors="ignore"), df.iloc[at:]],
                         ignore_index=True)

    cols = [c for c in table.columns[1:] if c in learned]
    table = insert(table, {c: learned[c]["score"] for c in cols})
    figs = dict(figs)
    for f, df in figs.items():
        values = {"n": {c: learned[c]["n"] for c in cols}, "ci_low": {c: learned[c]["ci_low"] for c in cols},
                  "ci_high": {c: learned[c]["ci_high"] for c in cols},
                  "degenerate": {c: False for c in df.columns[1:]}}.get(f, {})
        figs[f] = insert(df, values)
    return table, figs


def value_columns(csv_table: pd.DataFrame) -> list[str]:
    """The value columns of a results .csv (not a `<column>_<figure>` of FIGURES or MEASURE_FIGURES)."""
    return [c for c in csv_table.columns[1:] if not any(c.endswith(f"_{f}") for f in FIGURES + MEASURE_FIGURES)]


def measure_figures(table: pd.DataFrame, reports: list[dict], audit: dict | None = None) -> pd.DataFrame:
    """`<column>_<figure>` of MEASURE_FIGURES for every value column, from its measure's question report
    (empty where the measure is not short, or its golds come from no metadata source) and the
    dataset's audit (the validity controls)."""
    by = {r["measure"]: r for r in reports}
    out = {}
    for c in table.columns[1:]:
        r = by.get(c.partition("@")[0], {})
        s = golds.summary(r) if r else None
        values = {"requested": r.get("requested"), "short_reason": (r.get("short") or {}).get("reason"),
                  "single_source_share": s["single_source_share"] if s else None,
                  "gold_sources": "+".join(s["sources"]) if s else None,
                  **validity.csv_figures(audit or {}, c.partition("@")[0])}
        for f in MEASURE_FIGURES:
            out[f"{c}_{f}"] = [values[f]] * len(table)
    return pd.DataFrame(out, index=table.index)


def column_marks(table: pd.DataFrame, short: dict | None, witnessed: dict | None,
                 checked: tuple[dict, dict] | None = None) -> dict[str, str]:
    """column -> the marks of its measure: § short, ‡ some gold has a single source, and with
    `checked` (the audit's findings, its measures not answerable from the data: `validity.found`,
    `validity.unanswerable`) ¶ and ∅."""
    out = {}
    valid = validity.column_marks(table.columns[1:], *checked) if checked else {}
    for c in table.columns[1:]:
        m = c.partition("@")[0]
        mark = (SHORT if m in (short or {}) else "") + (
            golds.MARK if (witnessed or {}).get(m, {}).get("single_source") else "") + valid.get(c, "")
        if mark:
            out[c] = mark
    return out


def column_n(figs: dict[str, pd.DataFrame], col: str):
    """The column's n (the most common over its cells; a cell with another n shows its own)."""
    ns = figs["n"][col].dropna() if "n" in figs else pd.Series(dtype="Int64")
    return int(ns.mode().max()) if len(ns) else None  # a tie: the larger, the full question count


def cell(figs: dict[str, pd.DataFrame] | None, i: int, col: str, v, col_n=None) -> str:
    """`0.26 [0.14, 0.38]` (+ ` n=48` when not the column's n) + † when degenerate + * when
    significantly different from RANDOM."""
    if pd.isna(v):
        return ""
    text = f"{v:.2f}"
    if figs is None:
        return text
    lo, hi, n = figs["ci_low"].at[i, col], figs["ci_high"].at[i, col], figs["n"].at[i, col]
    if not pd.isna(lo):
        text += f" [{lo:.2f}, {hi:.2f}]"
    if not pd.isna(n) and col_n is not None and int(n) != col_n:
        text += f" n={int(n)}"
    if bool(figs["degenerate"].at[i, col]):
        text += DAGGER
    sig = figs["significant_vs_random"].at[i, col]
    if not pd.isna(sig) and bool(sig):
        text += SIGNIFICANT
    return text


def metric_row(table: pd.DataFrame, domain: str, figs: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The first row: each column's primary metric and n."""
    row = {"model": "metric (n)"}
    for c in table.columns[1:]:
        label = METRIC_LABEL.get(measures.get(domain, c.split("@")[0]).primary_metric, "?")
        n = column_n(figs, c)
        row[c] = label if n is None else f"{label} (n={n})"
    return row


def formatted(table: pd.DataFrame, domain: str, figs: dict[str, pd.DataFrame],
              col_marks: dict[str, str] | None = None) -> pd.DataFrame:
    """The .md/.tex cells as text, the metric row first (with each column's `col_marks`)."""
    cols = list(table.columns[1:])
    ns = {c: column_n(figs, c) for c in cols}
    top = metric_row(table, domain, figs)
    rows = [{k: v + (col_marks or {}).get(k, "") for k, v in top.items()}]
    for i, r in table.iterrows():
        rows.append({"model": str(r["model"]), **{c: cell(figs, i, c, r[c], ns[c]) for c in cols}})
    return pd.DataFrame(rows, columns=list(table.columns))


def _rows(df: pd.DataFrame) -> list[str]:
    return pipe_table(df.columns, df.itertuples(index=False), right=[c != "model" for c in df.columns])


def legend(confidence: float, n_boot: int, paired: bool, degenerate: bool, csv_names: bool = True) -> list[str]:
    """What the cells' figures and marks mean: `paired` when cells have a test against RANDOM,
    `degenerate` when some cell is marked (`csv_names`: with the .csv columns that hold them)."""
    sig, dag = f"`{SIGNIFICANT}`" if csv_names else SIGNIFICANT, DAGGER

    def where(text: str) -> str:
        return f" ({text} in the .csv)" if csv_names else ""

    out = [f"Each cell: the column's primary metric over its n questions (a missed answer counts as wrong) "
           f"[its {confidence:.0%} interval: percentile bootstrap over the questions, {n_boot} resamples, seeded]."]
    if paired:
        out.append(f"{sig} differs from random: the {confidence:.0%} interval of the paired bootstrap difference on "
                   f"the same questions excludes 0" + where("`<column>_diff_vs_random`, `_p_vs_random`") + ".")
    if degenerate:
        out.append(f"{dag} degenerate: the model chose one answer slot for 80% of the questions or more, so the "
                   "cell is the share of answers that sit in that slot" + where("`<column>_degenerate`") + ".")
    return out


SHORT = shortfall.MARK
short_notes = shortfall.notes  # one caption line for the measures with fewer questions than asked


def _marked(figs: dict[str, pd.DataFrame]) -> tuple[bool, bool]:
    """(some cell has a test against RANDOM, some cell is degenerate)"""
    return (bool(figs["significant_vs_random"].iloc[:, 1:].notna().to_numpy().any()),
            bool(figs["degenerate"].iloc[:, 1:].to_numpy().any()))


def _learned_note(table: pd.DataFrame) -> list[str]:
    if not (table["model"] == LEARNED_ROW).any():
        return []
    return [f"{LEARNED_ROW}: the audit's learned negative control, a knowledge-free answerer trained on the other "
            "questions of the measure (5-fold cross-validated by question), with its Wilson interval (docs/audit.md)."]


def to_markdown(table: pd.DataFrame, title: str, domain: str, figs: dict[str, pd.DataFrame], confidence: float = 0.95,
                n_boot: int = 1000, short: dict[str, str] | None = None, witnessed: dict[str, dict] | None = None,
                checked: tuple[dict, dict] | None = None) -> str:
    """`short`: measure -> why it has fewer questions than asked (its question report's `short`);
    `witnessed`: measure -> how many sources back its golds (`questions.witnesses.summary`);
    `checked`: (findings, not answerable) of the audit's validity controls."""
    # an escaped *: two in a row would make the text between them italic
    main = formatted(table, domain, figs, column_marks(table, short, witnessed, checked)).replace(regex={r"\*$": r"\\*"})
    lines = [f"# {title}", ""] + _rows(main) + [""]
    notes = (legend(confidence, n_boot, *_marked(figs)) + short_notes(short) + golds.notes(witnessed or {})
             + (validity.notes(*checked) if checked else []) + _learned_note(table))
    lines += [line for text in notes for line in (text, "")]
    debiased = figs["debiased"]
    if debiased[debiased["model"] != RANDOM].iloc[:, 1:].notna().to_numpy().any():  # RANDOM's alone says nothing
        lines += ["## Position-debiased", "",
                  "Choice mode: PriDe prior correction of the label log-probabilities (Zheng et al. 2023), the prior "
                  "being the mean predicted label distribution over the cell's questions; otherwise the mean over "
                  "the answer orders (zero_shot and the shuffle<s> variants) when shuffle variants exist. RANDOM, with one "
                  "order: its score, since a uniform pick has no position prior to remove.", ""]
        plain = pd.DataFrame([{"model": r["model"], **{c: cell(None, i, c, r[c]) for c in debiased.columns[1:]}}
                              for i, r in debiased.iterrows()], columns=list(debiased.columns))
        lines += _rows(plain) + [""]
    return "\n".join(lines)


def to_tex(table: pd.DataFrame, title: str, domain: str, figs: dict[str, pd.DataFrame], confidence: float = 0.95,
           n_boot: int = 1000, short: dict[str, str] | None = None, witnessed: dict[str, dict] | None = None,
           checked: tuple[dict, dict] | None = None) -> str:
    """The .md's main table in booktabs, under the paper's scale / factor header groups."""
    groups = factor_groups(domain, [c.partition("@")[0] for c in table.columns[1:]])
    caption = f"{title}. " + " ".join(legend(confidence, n_boot, *_marked(figs), csv_names=False) + short_notes(short)
                                      + golds.notes(witnessed or {}) + (validity.notes(*checked) if checked else [])
                                      + _learned_note(table))
    tex = to_latex(formatted(table, domain, figs, column_marks(table, short, witnessed, checked)), caption,
                   f"tab:results-{title}".replace("_", "-"), groups)
    align = "l" * len(table.columns)
    tex = tex.replace(f"\\begin{{tabular}}{{{align}}}", f"\\begin{{tabular}}{{l{'r' * (len(table.columns) - 1)}}}")
    # tex_escape keeps the daggers as Unicode characters
    return (tex.replace(DAGGER, r"\textsuperscript{\dag}").replace(golds.MARK, r"\textsuperscript{\ddag}")
            .replace(validity.FOUND, r"\textsuperscript{\P}").replace(validity.UNANSWERABLE, r"\textsuperscript{$\emptyset$}"))
