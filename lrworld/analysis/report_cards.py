"""One card per measure for the Snakemake report: the prompt template, one rendered example
question with its candidates and gold answer, and n, missed rate and score with CI per model, with
the LRWorld paper's figure beside each zero-shot row whose model has a paper row."""

from __future__ import annotations

import html

import pandas as pd

from lrworld.analysis.load import model_order

_STYLE = ("body{font-family:sans-serif;margin:1em;max-width:60em}pre{background:#f4f4f4;padding:.6em;"
          "white-space:pre-wrap}table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2em .6em}"
          "td.n{text-align:right}")


def _paper_cells(paper: dict[str, float] | None, model: str, r) -> str:
    """The paper's figure of a zero-shot row and whether our interval holds it (the paper's cells are
    zero-shot, over its own data)."""
    fig = (paper or {}).get(model) if r.variant == "zero_shot" else None
    if fig is None:
        return "<td></td><td></td>"
    inside = "inside" if r.ci_low - 1e-9 <= fig <= r.ci_high + 1e-9 else "outside"
    return f"<td class=n>{fig:.4f}</td><td>{inside}</td>"


def card_html(dataset: str, measure: str, template: str, example: dict, scores: pd.DataFrame,
              models: list[str], description: str = "", paper: dict[str, float] | None = None,
              paper_label: str = "", short: str | None = None, witnessed: str | None = None) -> str:
    """`paper`: our model -> the paper's figure for this measure (`paper_label` names its table);
    `short`: why the measure has fewer questions than asked (the question report's `short`);
    `witnessed`: how many sources back the golds of a knowledge measure (`questions.witnesses.describe`)."""
    e = html.escape
    labels, cands = example["labels"], example["candidates"]
    gold = example["answer_index"]
    bold = ' style="font-weight:bold"'
    cand_rows = "".join(f"<li{bold if i == gold else ''}>{e(lab)}. {e(c)}"
                        f"{' (gold)' if i == gold else ''}</li>" for i, (lab, c) in enumerate(zip(labels, cands)))
    s = scores[scores["measure"] == measure]
    rows = []
    for model in model_order([m for m in models if m in set(s["model"])]):
        for r in s[s["model"] == model].sort_values("variant", key=lambda v: v != "zero_shot").itertuples():
            rows.append(f"<tr><td>{e(model)}</td><td>{e(r.variant)}</td><td class=n>{r.n}</td>"
                        f"<td class=n>{r.missed_rate:.4f}</td><td class=n>{r.value:.4f}</td>"
                        f"<td class=n>[{r.ci_low:.4f}, {r.ci_high:.4f}]</td>"
                        + (_paper_cells(paper, model, r) if paper else "") + "</tr>")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{e(dataset)} / {e(measure)}</title>"
            f"<style>{_STYLE}</style></head><body><h1>{e(measure)} <small>({e(dataset)})</small></h1>"
            f"<p>{e(description)}</p>"
            + (f"<p class=short><b>\u00a7 Short measure:</b> {e(short)}</p>" if short else "")
            + (f"<p class=witnesses><b>\u2021 Sources per gold:</b> {e(witnessed)}</p>" if witnessed else "")
            + "<h2>Scores</h2><table><tr><th>model</th><th>variant</th><th>n</th><th>missed rate</th>"
            "<th>score</th><th>95% CI (bootstrap)</th>"
            + (f"<th>paper ({e(paper_label)})</th><th>paper vs our CI</th>" if paper else "")
            + "</tr>" + "".join(rows) + "</table>"
            + (f"<p>paper: the LRWorld paper's figure ({e(paper_label)}) for the model's paper row, over its own "
               "data; RANDOM's is the expected value of a uniform pick.</p>" if paper else "")
            + f"<h2>Prompt template</h2><pre>{e(template)}</pre>"
            f"<h2>Example question <small>({e(example['qid'])})</small></h2><pre>{e(example['prompt'])}</pre>"
            f"<p>Candidates:</p><ol style='list-style:none'>{cand_rows}</ol>"
            f"<p>Gold answer: <b>{e(labels[gold])}. {e(cands[gold])}</b></p></body></html>\n")
