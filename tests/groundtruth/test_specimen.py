"""Specimen prompts (lrworld/groundtruth/specimen.py): one question of each measure's shape, rendered
by the prompts rule's functions, as long as the run's real prompts: what `lrworld plan` counts for
an unbuilt prompt file and docs/paper.md sets beside the paper's Tables 16-17."""

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from lrworld.groundtruth import specimen
from lrworld.models.input_tokens import api_counter
from lrworld.prompts.render import template_path
from lrworld.prompts.variants import template_variant
from lrworld.questions import measures as registry
from tests.support.fixtures_graph import smk_cmd

QCFG = {"history_length": 5, "exclude_values": {"genres": ["IMAX", "(no genres listed)"]}}
DEFAULT = ["assoc_rule", "mem_item_item", "mem_user_user", "neu_item2users", "neu_user2items", "attr_genre"]


@pytest.mark.parametrize("measure", [m for m in registry.MEASURES], ids=lambda m: m.id)
def test_every_measure_and_variant_has_a_specimen_of_its_shape(measure):
    for domain in measure.domains:
        for variant in ("zero_shot", "cot", "kshot2", "noisy", "shuffle3"):
            if variant == "noisy" and measure.profile is None:
                continue
            tpl = template_path(domain, measure.id, template_variant(variant))
            p = specimen.specimen_prompt(domain, measure.id, variant, tpl, QCFG, user_items=7)
            labels = "(A, B, C, D)" if measure.qtype == registry.MCQ else "(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)"
            if "${labels}" not in tpl.read_text():  # the paper's Table 24: candidates inline, no labels
                labels = "Choose only one"
            assert labels in p and p.count(labels) == (3 if variant == "kshot2" else 1), (domain, variant)
            if measure.profile == "history" and measure.gold is None:  # the window: history_length items
                asked = p.split("### Question\n")[-1]  # kshot: the question after its solved examples
                shown = asked.split("listened to ")[1].split(" in the previous")[0].split(", ") if domain == "lastfm" \
                    else asked.split("\n\n")[0].splitlines()[1:]
                assert len(shown) == 5, (domain, variant, shown)
            if measure.gold is not None and measure.gold.candidate == "user":  # 10 users, 7 items each
                users = [ln for ln in p.splitlines() if ": a user who recently chose " in ln]
                assert len(users) == 10 * (3 if variant == "kshot2" else 1)
                assert {u.count("; ") for u in users} == {6}


def test_a_built_items_table_gives_the_specimens_their_titles():
    genres = ["Drama", "Comedy", "War", "Horror", "Musical", "Western"]
    items = pd.DataFrame({"item_id": [str(i) for i in range(300)], "title": [f"Film number {i}" for i in range(300)],
                          "year": 1990, "genres": [[genres[i % 6], "Crime"] for i in range(300)]})
    own = specimen.dataset_items(items, 7, "d")
    assert len(own) == specimen.ROWS and own["item_id"].tolist() == specimen.dataset_items(items, 7, "d")["item_id"].tolist()
    p = specimen.specimen_prompt("movie", "neu_user2items", "zero_shot",
                                 template_path("movie", "neu_user2items", "zero_shot"), QCFG, items=own)
    assert "Film number" in p and "Heat (1995)" not in p
    values = specimen.specimen_prompt("movie", "attr_genre", "zero_shot",
                                      template_path("movie", "attr_genre", "zero_shot"), QCFG, items=own)
    options = [ln[3:] for ln in values.splitlines() if ln[:3] in ("A. ", "B. ", "C. ", "D. ")]
    assert len(options) == 4 and set(options) <= set(genres)  # the table's own genres, not the specimens'


@pytest.mark.slow  # builds the default run's six measures up to their prompts (about a minute)
def test_a_specimen_is_as_long_as_the_real_prompts_of_its_measure(tmp_path, shared_data):
    """ML-100K at 40 questions a measure: each measure's specimen is within 10% of its built prompts'
    mean (GPT-3.5-Turbo's count, as the paper's Tables 16-17), with the dataset's own items within
    15%; a candidate user shown by 10 items (config/paper.yaml's movie datasets) as well."""
    import yaml

    cfg = {"seed": 2024, "questions": {"per_measure": 40}, "analysis": {"enabled": False},
           "models": {"random": {"backend": "random"}},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")}, "measures": DEFAULT}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    import shutil

    shutil.copy(Path(__file__).resolve().parents[2] / "config.yaml", tmp_path / "config.yaml")
    files = [f"results/prompts/ml/{m}/zero_shot.jsonl" for m in DEFAULT]
    proc = subprocess.run([*smk_cmd(tmp_path, *files), "--configfile", str(tmp_path / "c.yaml")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    count, _ = api_counter({"model": "gpt-3.5-turbo-0125"})
    items = pd.read_parquet(tmp_path / "results/data/ml/items.parquet")
    own = specimen.dataset_items(items, 2024, "ml")
    from lrworld.prompts.render import render_all

    for m in DEFAULT:
        tpl = template_path("movie", m, "zero_shot")
        built = [json.loads(line)["prompt"] for line in (tmp_path / files[DEFAULT.index(m)]).read_text().splitlines()]
        assert len(built) >= 30  # a measure may make fewer than it asks (its report says why)
        real = sum(map(count, built)) / len(built)
        # the specimens within 10%; the dataset's own items (a random draw of its catalogue, where the
        # questions' items are the ones users chose) within 15%
        for table, within in ((None, 0.1), (own, 0.15)):
            ours = count(specimen.specimen_prompt("movie", m, "zero_shot", tpl, QCFG, user_items=5, items=table))
            assert abs(ours / real - 1) <= within, (m, table is None, ours, real)
        if registry.by_id(m).gold is not None and registry.by_id(m).gold.candidate == "user":
            questions = [json.loads(line) for line in (tmp_path / f"results/questions/ml/{m}.jsonl").read_text()
                         .splitlines()]
            real10 = sum(count(r["prompt"]) for r in render_all(questions, tpl, items, "zero_shot",
                                                                 QCFG["exclude_values"], 10)) / len(questions)
            ours10 = count(specimen.specimen_prompt("movie", m, "zero_shot", tpl, QCFG, user_items=10))
            assert 0.9 <= ours10 / real10 <= 1.1, (m, ours10, real10)
