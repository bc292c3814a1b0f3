"""Write one analysis table as CSV, Markdown and LaTeX (booktabs), and figures as PNG + SVG."""

from __future__ import annotations

import html
import math
from pathlib import Path

import pandas as pd

from lrworld.core.markdown import pipe_table
from lrworld.core import io

_TEX_ESCAPE = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
               "~": r"\textasciitilde{}", "<": r"\textless{}", ">": r"\textgreater{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def tex_escape(text) -> str:
    return "".join(_TEX_ESCAPE.get(c, c) for c in str(text))


def fmt(v, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def to_markdown(df: pd.DataFrame, title: str, note: str = "", digits: int = 4) -> str:
    lines = [f"# {title}", ""]
    if df.empty:
        return "\n".join(lines + ["(no rows)", ""]) + (f"\n{note}\n" if note else "")
    lines += pipe_table(df.columns, ([fmt(v, digits) for v in row] for _, row in df.iterrows()),
                        right=[pd.api.types.is_numeric_dtype(df[c]) for c in df.columns])
    out = "\n".join(lines) + "\n"
    return out + (f"\n{note}\n" if note else "")


def factor_groups(domain: str, measure_ids) -> list[tuple[str, int]]:
    """`to_latex`'s header groups over a model column and the measures' columns: "scale / factor"
    spans of adjacent measures, as the paper's tables group them."""
    from lrworld.questions import measures

    groups = [("", 1)]
    for m in measure_ids:
        me = measures.get(domain, m)
        label = f"{me.scale} / {me.factor}"
        if groups[-1][0] == label:
            groups[-1] = (label, groups[-1][1] + 1)
        else:
            groups.append((label, 1))
    return groups


def to_latex(df: pd.DataFrame, caption: str, label: str, groups: list[tuple[str, int]] | None = None,
             digits: int = 4) -> str:
    """A booktabs table. `groups`: optional header row of (text, span) over the columns, e.g. the
    paper's scale/factor grouping; adjacent equal groups become one \\multicolumn with a cmidrule."""
    cols = list(df.columns)
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) else "l" for c in cols)
    lines = [r"\begin{table}[t]", r"\centering", f"\\caption{{{tex_escape(caption)}}}", f"\\label{{{label}}}",
             f"\\begin{{tabular}}{{{align}}}", r"\toprule"]
    if groups:
        cells, rules, start = [], [], 1
        for text, span in groups:
            cells.append(f"\\multicolumn{{{span}}}{{c}}{{{tex_escape(text)}}}" if span > 1 else tex_escape(text))
            if text:
                rules.append(f"\\cmidrule(lr){{{start}-{start + span - 1}}}")
            start += span
        lines.append(" & ".join(cells) + r" \\")
        lines.append(" ".join(rules))
    lines.append(" & ".join(tex_escape(c) for c in cols) + r" \\")
    lines.append(r"\midrule")
    for _, row in df.iterrows():
        lines.append(" & ".join(tex_escape(fmt(v, digits)) for v in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


_HTML_STYLE = ("body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
               "td,th{border:1px solid #bbb;padding:.2em .6em;text-align:right}th{background:#f0f0f0}")


def to_html(df: pd.DataFrame, title: str, note: str = "", digits: int = 4) -> str:
    """A standalone page (the Snakemake report shows HTML inline; it only offers CSV as a download)."""
    body = df.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.{digits}f}", border=0)
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>"
            f"<style>{_HTML_STYLE}</style></head><body><h2>{html.escape(title)}</h2>{body}"
            f"<p>{html.escape(note)}</p></body></html>\n")


def write_table(df: pd.DataFrame, stem: str | Path, title: str, caption: str = "", note: str = "",
                groups=None, digits: int = 4) -> list[str]:
    """stem.csv, stem.md, stem.tex and stem.html; returns the paths."""
    stem = str(stem)
    io.write_text(stem + ".csv", df.to_csv(index=False, float_format=f"%.{digits}f", lineterminator="\n"))
    io.write_text(stem + ".md", to_markdown(df, title, note, digits))
    io.write_text(stem + ".tex", to_latex(df, caption or title, "tab:" + Path(stem).name.replace("_", "-"),
                                          groups, digits))
    io.write_text(stem + ".html", to_html(df, title, note, digits))
    return [stem + ext for ext in (".csv", ".md", ".tex", ".html")]


def save_figure(fig, stem: str | Path) -> list[str]:
    """stem.png and stem.svg (deterministic: no timestamps in the SVG)."""
    stem = str(stem)
    Path(stem).parent.mkdir(parents=True, exist_ok=True)
    with io.atomic_path(stem + ".png") as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight", metadata={"Software": None})
    with io.atomic_path(stem + ".svg") as tmp:
        fig.savefig(tmp, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    return [stem + ".png", stem + ".svg"]
