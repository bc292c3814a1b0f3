"""The analyses through the real Snakemake CLI on real ML-100K (random models), with the
documented config/ablation.yaml merged over a test config, then `snakemake --report` opened in
headless Chromium: every figure's image must load (screenshots are kept in the tmp dir)."""

import base64
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from cdp import Browser, find_chromium

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
PLOTS = ["scores", "position", "popularity", "noise_drop", "kshot"]
TABLES = ["scores", "slots", "position", "popularity", "prompt_tokens", "usage", "latency", "noise_drop",
          "model_size", "kshot"]


def run(workdir, *args):
    # --configfile takes several files: it comes last, after the targets
    proc = subprocess.run([*SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "-d", str(workdir), "--cores", "2", *args,
                           "--configfile", str(workdir / "config.yaml"), str(ROOT / "config/ablation.yaml"),
                           str(workdir / "override.yaml")], capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_data):
    wd = tmp_path_factory.mktemp("analysis")
    (wd / "config.yaml").write_text(yaml.safe_dump({
        "seed": 11, "cache_dir": str(wd / "cache"), "questions": {"history_length": 5, "per_measure": 30},
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                            "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": ["attr_genre"]}},
        "models": {"random": {"backend": "random", "seed": 0}, "random-b": {"backend": "random", "seed": 5}}}))
    # keep the ablation config's analysis block; fewer variants, a whitespace tokenizer, a pair of the test's models
    (wd / "override.yaml").write_text(yaml.safe_dump({
        "variants": ["zero_shot", "kshot", "noisy", "shuffle1", "shuffle2"],
        "models": {"smollm2-135m-generate": {"backend": "hf", "enabled": False}},  # random models only
        "analysis": {"tokenizer": "whitespace", "bootstrap": 300,
                     "model_pairs": [{"small": "random", "large": "random-b"}]}}))
    targets = [f"results/analysis/ml/tables/{t}.csv" for t in TABLES] + ["results/analysis/ml/cards/attr_genre.html"]
    run(wd, *targets)
    run(wd, "--report", str(wd / "report.html"), *targets)
    return wd


def test_every_table_and_plot_is_built(built):
    a = built / "results/analysis/ml"
    for t in TABLES:
        for ext in ("csv", "md", "tex", "html"):
            assert (a / f"tables/{t}.{ext}").stat().st_size > 0, (t, ext)
    for p in PLOTS:
        assert (a / f"plots/{p}.png").read_bytes()[:4] == b"\x89PNG"
        assert b"<svg" in (a / f"plots/{p}.svg").read_bytes()[:2000]
    scores = pd.read_csv(a / "tables/scores.csv")
    assert list(scores["model"]) == ["random", "random-b"]
    assert {"attr_genre", "attr_genre_ci_low", "attr_genre_ci_high", "attr_genre_n", "attr_genre@noisy"} <= set(scores)
    assert (scores["attr_genre_n"] == 30).all()
    assert "\\toprule" in (a / "tables/scores.tex").read_text()
    pos = pd.read_csv(a / "tables/position.csv")
    assert set(pos["seeds"]) == {2} and {"mean", "variance"} <= set(pos)
    slots = pd.read_csv(a / "tables/slots.csv")
    assert list(slots["source"]) == ["questions", "shuffle1", "shuffle2"] and (slots[list("ABCD")].sum(axis=1) == 30).all()
    assert len(pd.read_csv(a / "tables/model_size.csv")) == 1  # random -> random-b; the paper's disabled pairs skipped
    card = (a / "cards/attr_genre.html").read_text()
    assert "Prompt template" in card and "(gold)" in card and "random-b" in card
    # genres come from ML-100K's own file alone: the card, and its caption in the report, say so
    assert "<b>\u2021 Sources per gold:</b> 100% single-source (ml-100k)" in card
    assert "attr_genre: 100% single-source (ml-100k)." in (built / "report.html").read_text(encoding="utf-8")


def test_report_opens_in_headless_chromium_with_images_loaded(built, tmp_path):
    exe = find_chromium()
    if exe is None:
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    browser = Browser(exe, str(tmp_path / "profile"))
    click = "((t) => {const a = [...document.querySelectorAll('a')].find(e => e.textContent.trim() === t); " \
            "if (!a) return false; a.click(); return true;})(%r)"
    try:
        browser.open((built / "report.html").as_uri())
        browser.wait_for("document.body && document.body.innerText.includes('RESULTS')")
        browser.screenshot(tmp_path / "home.png")
        has_link = "[...document.querySelectorAll('a')].some(e => e.textContent.trim() === %r)"
        rows = "document.querySelectorAll('table tbody tr')"

        def goto(category):
            browser.eval(click % "Results")  # the breadcrumb back to the categories (absent on the home page)
            browser.wait_for(has_link % category)
            assert browser.eval(click % category), category
            browser.wait_for(f"{rows}.length > 0 && document.body.innerText.includes({category!r})")

        seen = 0
        for category in ("Scores", "Position bias", "Popularity bias", "Ablations"):
            goto(category)
            # figure rows carry the FIGURE label (3rd cell); table rows the FILE label
            figures = browser.eval(f"[...{rows}].map((r, i) => r.cells[2].innerText.trim() ? i : -1).filter(i => i >= 0)")
            for i in figures:
                goto(category)
                browser.eval(f"{rows}[{i}].querySelector('a[iconname=eye]').click()")
                browser.wait_for("[...document.querySelectorAll('img')].some(i => i.src.startsWith('data:image/png') "
                                 "&& i.complete && i.naturalWidth > 100)")
                browser.screenshot(tmp_path / f"figure{seen}.png")
                seen += 1
        assert seen == len(PLOTS)
        iframe = ("[...document.querySelectorAll('iframe')].map(f => f.src)"
                  ".find(s => s.startsWith('data:text/html;charset=utf8;filename=%s'))")
        tables = 0
        for category in ("Scores", "Position bias", "Popularity bias", "Tokens and time", "Ablations"):
            goto(category)
            names = browser.eval(f"[...{rows}].map(r => r.cells[1].innerText.trim())")
            for i, name in enumerate(names):
                if not name:
                    continue  # a figure row
                goto(category)
                browser.eval(f"{rows}[{i}].querySelector('a[iconname=eye]').click()")
                src = browser.wait_for(iframe % f"{name}.html")
                assert "<table" in base64.b64decode(src.split("base64,", 1)[1]).decode(), name
                tables += 1
        assert tables == len(TABLES) + 1  # + paired
        browser.screenshot(tmp_path / "table.png")
        goto("Measure cards")  # the card is an HTML page shown in the report
        browser.eval(f"{rows}[0].querySelector('a[iconname=eye]').click()")
        # a data: iframe is cross-origin to the report: read its source instead of its document
        src = browser.wait_for("[...document.querySelectorAll('iframe')].map(f => f.src)"
                               ".find(s => s.startsWith('data:text/html'))")
        assert "Prompt template" in base64.b64decode(src.split("base64,", 1)[1]).decode()
        browser.screenshot(tmp_path / "card.png")
        shot = (tmp_path / "figure0.png").read_bytes()
        assert shot[:4] == b"\x89PNG" and len(shot) > 10_000
    finally:
        browser.close()
