"""The Snakemake report captions of the results table and the cards carry the short-measure (§)
and sources-per-gold (‡) lines of the question reports, rendered as Snakemake renders a caption."""

import json
from pathlib import Path
from types import SimpleNamespace

from docutils.core import publish_parts
from jinja2 import Environment

from lrworld.workflow.report_notes import table_notes

ROOT = Path(__file__).resolve().parents[2]


def _render(caption: str, notes: list[str]) -> str:
    # snakemake.report: Environment(trim_blocks, lstrip_blocks), then docutils to HTML
    snakemake = SimpleNamespace(params=SimpleNamespace(caption_notes=notes), wildcards=SimpleNamespace(dataset="ml"))
    text = Environment(trim_blocks=True, lstrip_blocks=True).from_string(
        (ROOT / caption).read_text(encoding="utf-8")).render(snakemake=snakemake)
    return publish_parts(text, writer="html")["body"]


def test_table_caption_marks_short_and_single_source_measures(tmp_path):
    short = {"measure": "neu_user2items", "questions": 41, "requested": 200,
             "short": {"reason": "41 of 200 questions: 943 targets tried (skipped_too_few_negatives 902)"}}
    genre = {"measure": "attr_genre", "questions": 50, "requested": 50, "skipped": {},
             "facts": {"witnesses": {"1": 50}, "sources": {"recbole-atomic": 50}}}
    files = []
    for r in (short, genre):
        files.append(tmp_path / f"{r['measure']}.report.json")
        files[-1].write_text(json.dumps(r))
    notes = table_notes([str(f) for f in files] + [str(tmp_path / "not_built.report.json")])
    html = _render("docs/report/table.rst", notes)
    assert ("§ short measures (fewer questions than asked): neu_user2items: 41 of 200 questions: 943 targets "
            "tried (skipped_too_few_negatives 902).") in html
    assert "‡ sources per gold" in html and "attr_genre: 100% single-source (recbole-atomic)." in html
    assert "<a " not in html.split("‡")[1]  # an underscore is text, not a link
    card = _render("docs/report/card.rst", table_notes([str(files[1])]))
    assert "attr_genre: 100% single-source (recbole-atomic)." in card and "§" not in card
    # before the build, no report: the static text alone
    assert "sources per gold" not in _render("docs/report/table.rst", table_notes([str(tmp_path / "none.json")]))


def test_table_and_card_captions_carry_the_validity_findings(tmp_path):
    audit = tmp_path / "ml.json"
    audit.write_text(json.dumps({"validity": {"measures": {
        "attr_genre": {"findings": ["most_popular", "learned"], "answerable": True,
                       "positive": {"method": "m", "correct": 30, "n": 50, "score": 0.6, "ci_low": 0.46,
                                    "ci_high": 0.72, "chance": 0.25}},
        "neu_user2items": {"findings": [], "answerable": False,
                           "positive": {"method": "item-kNN", "correct": 5, "n": 50, "score": 0.1, "ci_low": 0.04,
                                        "ci_high": 0.21, "chance": 0.1}}}}}))
    html = _render("docs/report/table.rst", table_notes([], str(audit)))
    assert "¶ a knowledge-free answerer" in html and "attr_genre: most_popular, learned." in html
    assert "∅ not answerable from the data" in html and "neu_user2items: item-kNN: 5 of 50" in html
    card = _render("docs/report/card.rst", table_notes([], str(audit), "neu_user2items"))
    assert "∅ not answerable" in card and "¶" not in card.split("</p>", 1)[1]
