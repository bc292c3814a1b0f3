"""The browser's HTML: every page one self-contained file (its data as inline JSON, the CSS and
JS inline, figures as data: URIs), so the site opens from the file system with no server and no
network, and a page shown inside `snakemake --report` works the same."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import pandas as pd

HERE = Path(__file__).parent


# Inside <script> the HTML parser still looks for "</script" and "<!--" (a "<!--<script>" in a title
# makes the element swallow the page's code); JSON's \u escapes keep every such byte out of the markup.
_INERT = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                        "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _json_script(data) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False).translate(_INERT)
    return f'<script type="application/json" id="data">{text}</script>'


def _image(path: str | Path, alt: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode()
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _page(title: str, body: str, script: str = "") -> str:
    css = (HERE / "browser.css").read_text()
    return (f"<!doctype html>\n<html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
            f"<style>{css}</style></head><body>\n{body}\n{script}</body></html>\n")


def dataset_page(data: dict, legend: list[str], plots: dict[str, str] | None = None) -> str:
    """One results table with its cells' questions; `plots`: {caption: png path} shown above it."""
    ds = data["dataset"]
    figures = "".join(_image(p, alt) for alt, p in (plots or {}).items())
    body = (f'<p id="home"><a href="index.html">all tables</a></p><h1>{html.escape(ds)} ({html.escape(data["domain"])})</h1>'
            f'<table id="results"></table>'
            + "".join(f'<p class="legend">{html.escape(t)}</p>' for t in legend)
            + '<p class="legend">Click a cell for its questions.</p>'
            + '<div id="cell"></div>'  # above the plots: a clicked cell's questions show under the table
            + (f'<div class="plots">{figures}</div>' if figures else ""))
    script = _json_script(data) + f"<script>{(HERE / 'browser.js').read_text()}</script>"
    return _page(f"lrworld results: {ds}", body, script)


def track_page(name: str, table: pd.DataFrame, source: str) -> str:
    """A LLaRA or SRBench table (no per-question cells: those tracks score lists, not options)."""
    body = (f'<p><a href="../index.html">all tables</a></p><h1>{html.escape(name)}</h1>'
            + table.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.4f}", border=0, table_id="results")
            + f'<p class="legend">From {html.escape(source)} (its .md has the notes).</p>')
    return _page(f"lrworld results: {name}", body)


def index_page(tables: list[dict], tracks: list[dict] = ()) -> str:
    """The site's front page: one link per LRWorld table ({dataset, domain, models, columns}) and per
    track table ({name, rows, columns}: results/site/tracks/<name>.html)."""
    rows = "".join(f'<tr><td><a href="{html.escape(t["dataset"])}.html">{html.escape(t["dataset"])}</a></td>'
                   f'<td>{html.escape(t["domain"])}</td><td>{t["models"]}</td><td>{t["columns"]}</td></tr>'
                   for t in tables)
    body = ("<h1>lrworld results</h1><table><tr><th>table</th><th>domain</th><th>models</th><th>columns</th></tr>"
            f"{rows}</table>")
    if tracks:
        body += ("<h2>LLaRA and SRBench</h2><table><tr><th>table</th><th>rows</th><th>columns</th></tr>"
                 + "".join(f'<tr><td><a href="tracks/{html.escape(t["name"])}.html">{html.escape(t["name"])}</a></td>'
                           f'<td>{t["rows"]}</td><td>{t["columns"]}</td></tr>' for t in tracks) + "</table>")
    return _page("lrworld results", body)
