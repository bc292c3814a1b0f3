"""The results browser (lrworld/site/): a page built from hand-made graph files, opened from the
file system in headless Chromium: the table's cells, a click on random x attr_genre, its rows and
the correct / wrong / missed filters against the score file; untrusted text stays text."""

import base64
import json

import pytest
import yaml

from lrworld.core import io
from lrworld.scoring.metrics import score
from lrworld.scoring.paper_comparison import comparison
from lrworld.scoring.table import figures, results_table, uncertainty, with_marks
from lrworld.analysis.load import responses_frame
from lrworld.site.collect import page_data, table_legend
from lrworld.site.render import dataset_page, index_page, track_page
from tests.analysis.cdp import Browser, find_chromium
from tests.graph import snakemake

HOSTILE = "</script><img src=x onerror=\"document.title='pwned'\">"
# "<!--<script>" inside a <script> element puts the HTML parser in its escaped state: the element then
# runs on past its own "</script>" and swallows the page's code
COMMENT = "<!--<script>"

# 6 questions: random picks 0, 1, None, 0, 2, 0 against gold 0, 0, 0, 0, 2, 1
GOLD = [0, 0, 0, 0, 2, 1]
PICKS = {"random": [0, 1, None, 0, 2, 0], "other": [1, 1, 1, 1, 1, 1]}


def write_graph(root, title_text=""):
    """The files one page reads, for dataset ml (attr_genre, zero_shot), as the graph lays them out;
    `title_text` goes into a title of the history and into a genre."""
    prompts = [{"qid": f"ml/attr_genre/u{i}", "prompt": f"History:\n1. Movie {i}{title_text}\n" + (HOSTILE if i == 2 else ""),
                "candidates": ["Drama" + title_text, "Comedy", HOSTILE, "War"], "labels": list("ABCD"), "answer_index": g,
                "prompt_sha256": str(i)} for i, g in enumerate(GOLD)]
    io.write_jsonl(root / "results/prompts/ml/attr_genre/zero_shot.jsonl", prompts)
    scores = []
    for model, picks in PICKS.items():
        recs = [{"qid": p["qid"], "answer_index": p["answer_index"], "parsed": c, "measure": "attr_genre",
                 "variant": "zero_shot", "raw_text": "no idea" if c is None else "ABCD"[c] + (HOSTILE if i == 4 else ""),
                 "label_logprobs": [-0.5, -1.5, -2.0, -3.0] if model == "random" else None}
                for i, (p, c) in enumerate(zip(prompts, picks))]
        responses = f"results/responses/ml/{model}/attr_genre/zero_shot.jsonl"
        io.write_jsonl(root / responses, recs)
        s = {**score(recs, "accuracy", 4), "dataset": "ml", "model": model, "measure": "attr_genre",
             "variant": "zero_shot", "responses": responses,
             "provenance": f"results/provenance/ml/{model}/attr_genre/zero_shot.json"}
        io.write_json(root / f"results/scores/ml/{model}/attr_genre/zero_shot.json", s)
        io.write_json(root / s["provenance"], {"chain": [
            {"role": "score", "path": f"results/scores/ml/{model}/attr_genre/zero_shot.json", "rule": "score",
             "sha256": "ab" * 32},
            {"role": "questions", "path": "results/questions/ml/attr_genre.jsonl", "rule": "questions",
             "sha256": "cd" * 32}]})
        scores.append(s)
    io.write_json(root / "results/audit/ml.json", {"passed": True, "violations": 0, "measures": {
        "attr_genre": {"questions": 6, "tied_positives": 2, "slots": {"counts": [4, 1, 1, 0], "p": 0.12}}}})
    table = results_table(scores, "movie", list(PICKS))
    frame = responses_frame([root / s["responses"] for s in scores])
    figs = figures(scores, table, uncertainty(frame, list(PICKS), 200, 0.95, 0))
    io.write_text(root / "results/tables/ml.csv", with_marks(table, figs).to_csv(index=False, float_format="%.4f"))
    # random is the paper's RANDOM row; "other" has no paper row
    paper = comparison(with_marks(table, figs), scores, "movie", "movielens", {"random": "RANDOM", "other": None})
    io.write_text(root / "results/tables/ml.paper.csv", paper.to_csv(index=False, float_format="%.4f"))
    return [f"results/scores/ml/{m}/attr_genre/zero_shot.json" for m in PICKS]


@pytest.fixture(params=["", COMMENT, COMMENT + " & </script> -->"], ids=["plain", "comment", "comment-close"])
def site(tmp_path, monkeypatch, request):
    monkeypatch.chdir(tmp_path)  # the graph's paths are relative to the workdir, as in a job
    score_files = write_graph(tmp_path, request.param)
    data = page_data("ml", "movie", "results/tables/ml.csv", score_files, "results/audit/ml.json",
                     "results/tables/ml.paper.csv")
    io.write_text(tmp_path / "results/site/ml.html", dataset_page(data, table_legend(data, 200, 0.95, 0)))
    io.write_text(tmp_path / "results/site/index.html",
                  index_page([{"dataset": "ml", "domain": "movie", "models": 2, "columns": 1}]))
    return tmp_path / "results/site", data


def test_page_data_has_every_cell_and_answer(site):
    _, data = site
    cell = data["cells"]["random|attr_genre"]
    assert [a["status"] for a in cell["answers"]] == ["correct", "wrong", "missed", "correct", "correct", "wrong"]
    assert (cell["value"], cell["n"], cell["score"]["correct"], cell["score"]["missed"]) == (0.5, 6, 3, 1)
    assert cell["provenance"]["chain"][1]["path"] == "results/questions/ml/attr_genre.jsonl"
    assert data["prompts"]["attr_genre|zero_shot"]["ml/attr_genre/u4"]["answer_index"] == 2
    assert data["cells"]["other|attr_genre"]["diff_vs_random"] == -0.3333  # 1 of 6 vs 3 of 6, from the .csv
    # the paper's Table 3 RANDOM <movie, genre>: 0.2500, inside random's interval over 3 of 6; over its 297
    assert cell["paper"] == {"paper_name": "RANDOM", "paper_table": "3", "value": 0.25, "diff": 0.25, "inside": True,
                             "n": 297, "missed_rate": None}
    assert data["cells"]["other|attr_genre"]["paper"] is None
    assert "the LRWorld paper's figure (its Table 3)" in table_legend(data, 200, 0.95, 0)[-1]


def test_page_is_self_contained_and_keeps_hostile_text_inert(site):
    folder, _ = site
    page = (folder / "ml.html").read_text()
    assert "<script src" not in page and "<link" not in page and "http" not in page  # offline: nothing fetched
    assert page.count("</script>") == 2  # the data's and the code's: the hostile text cannot close one
    data = page.split('<script type="application/json" id="data">', 1)[1].split("</script>", 1)[0]
    assert not set("<>&") & set(data)  # nor open a comment or a script inside one
    assert 'href="ml.html"' in (folder / "index.html").read_text()


def test_track_tables_get_a_plain_page_linked_from_the_index():
    import pandas as pd

    table = pd.DataFrame({"model": ["random", HOSTILE], "hit_ratio_at_1": [0.05, 0.123456]})
    page = track_page("llara", table, "results/tables/llara.csv")
    assert "<td>0.1235</td>" in page and HOSTILE not in page and "&lt;/script&gt;" in page
    index = index_page([], [{"name": "llara", "rows": 2, "columns": 1}])
    assert '<a href="tracks/llara.html">llara</a></td><td>2</td><td>1</td>' in index
    assert "LLaRA and SRBench" not in index_page([])


def test_the_index_plans_the_track_tables(tmp_path, shared_data):
    llara = shared_data / "llara"
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre"],
                            "source": {"path": str(shared_data / "movielens-100k/raw")}}},
        "models": {"random": {"backend": "random", "seed": 0}},
        "llara": {"seed": 0, "n_candidates": 20, "max_epochs": 2, "baselines": ["popularity"], "models": ["random"],
                  "datasets": {"lastfm": {"path": str(llara / "lastfm"), "train_files": ["train_data.jsonl"],
                                          "template": "lastfm"}}}}))
    out = snakemake(tmp_path, "-n", "results/site/index.html").stdout
    assert "llara_table" in out and "results/site/tracks/llara.html" in out
    assert "site_page" not in out  # the index needs the tables, not the pages


def _count_rows(browser):
    return browser.eval("[...document.querySelectorAll('#qlist .question')].filter(q => !q.hidden).length")


def test_click_a_cell_in_headless_chromium_and_filter(site, tmp_path, request):
    exe = find_chromium()
    if exe is None:
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    folder, _ = site
    want = io.read_json(tmp_path / "results/scores/ml/random/attr_genre/zero_shot.json")
    browser = Browser(exe, str(tmp_path / "profile"))
    try:
        browser.open((folder / "index.html").as_uri())
        # not readyState: right after opening, that can still be about:blank's
        browser.wait_for("document.querySelector('a[href=\"ml.html\"]') !== null")
        browser.eval("document.querySelector('a[href=\"ml.html\"]').click()")
        browser.wait_for("document.querySelectorAll('#results td.v a').length === 2")
        assert browser.eval("document.querySelector('#results td[data-cell=\"random|attr_genre\"]').innerText") \
            .startswith("0.50 [")
        assert browser.eval("document.querySelector('#results td[data-cell=\"random|attr_genre\"] span.paper').innerText") \
            == "paper 0.2500 \u2713"
        assert browser.eval("document.querySelectorAll('#results span.paper').length") == 1  # other: no paper row
        browser.eval("document.querySelector('#results td[data-cell=\"random|attr_genre\"] a').click()")
        browser.wait_for("document.querySelectorAll('#qlist .question').length > 0")
        counts = json.loads(browser.eval("JSON.stringify(document.getElementById('counts').dataset)"))
        assert browser.eval("document.getElementById('paper').innerText").startswith(
            "The LRWorld paper (its Table 3, row RANDOM): 0.2500 over its 297 questions, inside our interval")
        assert _count_rows(browser) == want["n"] == int(counts["n"]) == 6
        assert (int(counts["correct"]), int(counts["missed"])) == (want["correct"], want["missed"]) == (3, 1)
        for status, n in (("correct", want["correct"]), ("wrong", want["n"] - want["correct"] - want["missed"]),
                          ("missed", want["missed"]), ("all", want["n"])):
            browser.eval(f"document.querySelector('button[data-filter={status}]').click()")
            assert _count_rows(browser) == n, status
        # one question opened: gold and chosen marked, raw answer, log-probabilities, all as text
        q = "document.querySelector('.question[data-qid=\"ml/attr_genre/u4\"]')"
        browser.eval(f"{q}.open = true")
        assert browser.eval(f"{q}.querySelector('li.gold').innerText").endswith("\u2714 gold \u2190 chosen")
        assert browser.eval(f"{q}.querySelector('pre.raw').innerText") == "C" + HOSTILE
        assert browser.eval(f"{q}.querySelectorAll('table.logprobs tr').length") == 4
        genre = browser.eval(f"{q}.querySelector('li').innerText")
        assert "Drama" + request.node.callspec.params["site"] in genre, genre  # the title text shown as text
        assert browser.eval("document.title") == "lrworld results: ml"  # the onerror never ran
        assert browser.eval("document.querySelectorAll('#qlist img').length") == 0
        assert browser.eval("document.querySelectorAll('#chain tr').length") == 3  # header + 2 nodes
        assert "tied_positives" in browser.eval("document.getElementById('side').innerText")
        # the address names the cell: reloading it opens the same questions
        assert browser.eval("location.hash") == "#cell=random%7Cattr_genre"
        assert browser.eval("document.getElementById('home').hidden") is False  # the link to the index
        browser.screenshot(tmp_path / "cell.png")
    finally:
        browser.close()


@pytest.mark.slow
def test_the_graph_builds_the_site_and_a_cell_matches_its_score_file(tmp_path, shared_data):
    """The `site_page` rule on real ML-100K with a random model: click random x attr_genre, count
    the rows and compare with results/scores/.../attr_genre/zero_shot.json; the plots are inline."""
    cfg = {"seed": 11, "cache_dir": str(tmp_path / "cache"), "questions": {"history_length": 5, "per_measure": 20},
           "variants": ["zero_shot"],
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")},
                               "measures": ["attr_genre", "mem_item_item"]}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, "results/site/index.html", "results/site/ml.html")
    assert (tmp_path / "results/analysis/ml/plots/radar.svg").exists()
    want = io.read_json(tmp_path / "results/scores/ml/random/attr_genre/zero_shot.json")
    exe = find_chromium()
    if exe is None:
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    browser = Browser(exe, str(tmp_path / "profile"))
    try:
        browser.open((tmp_path / "results/site/ml.html").as_uri() + "#cell=random%7Cattr_genre")
        browser.wait_for("document.querySelectorAll('#qlist .question').length > 0")
        assert browser.eval("document.querySelectorAll('#results td.v a').length") == 2
        # ML-100K is compared with the paper's MovieLens table: RANDOM's expected values under its cells
        assert browser.eval("[...document.querySelectorAll('#results span.paper')].map(s => s.innerText.slice(0, 12))") \
            == ["paper 0.1000", "paper 0.2500"]
        assert _count_rows(browser) == want["n"] == 20
        browser.eval("document.querySelector('button[data-filter=correct]').click()")
        assert _count_rows(browser) == want["correct"]
        browser.eval("document.querySelector('button[data-filter=missed]').click()")
        assert _count_rows(browser) == want["missed"]
        # the table's heatmap and radar, inline
        assert browser.eval("[...document.querySelectorAll('.plots img')].filter(i => i.src.startsWith("
                            "'data:image/png') && i.complete && i.naturalWidth > 300).length") == 2
        chain = browser.eval("[...document.querySelectorAll('#chain td:nth-child(2)')].map(t => t.innerText)")
        assert "results/questions/ml/attr_genre.jsonl" in chain and "results/audit/ml.json" in chain

        # the same page in `snakemake --report`, under Results browser / ml beside its plots
        snakemake(tmp_path, "--report", str(tmp_path / "report.html"), "results/site/ml.html")
        click = "[...document.querySelectorAll('a')].find(e => e.textContent.trim() === %r).click()"
        browser.open((tmp_path / "report.html").as_uri())
        browser.wait_for("[...document.querySelectorAll('a')].some(e => e.textContent.trim() === 'Results browser')")
        browser.eval(click % "Results browser")  # one subcategory (ml): the report lists its entries at once
        rows = "[...document.querySelectorAll('table tbody tr')]"
        browser.wait_for(f"{rows}.length === 3")
        assert browser.eval(f"{rows}.map(r => r.innerText.replace(/\\s+/g, ' ').trim())") == [
            "ml heatmap", "ml radar", "ml results browser"]
        browser.eval(f"{rows}[2].querySelector('a[iconname=eye]').click()")
        src = browser.wait_for("[...document.querySelectorAll('iframe')].map(f => f.src)"
                               ".find(s => s.startsWith('data:text/html;charset=utf8;filename=ml.html'))")
        assert base64.b64decode(src.split("base64,", 1)[1]) == (tmp_path / "results/site/ml.html").read_bytes()
        browser.open(src)  # as the report shows it: cells still open; the link to the absent index is hidden
        browser.wait_for("document.querySelectorAll('#results td.v a').length === 2")
        assert browser.eval("document.getElementById('home').hidden") is True
    finally:
        browser.close()
