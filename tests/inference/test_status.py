"""`lrworld status`: per dataset and model, the prompts answered in the cache out of those the
config's existing prompt files need, with the prompt files not yet built named."""

import json

import yaml

from lrworld import cli
from lrworld.core import io
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache
from lrworld.models.backends.random import RandomBackend


def prompt(i):
    return {"qid": f"ml100k/attr_genre/{i}", "prompt": f"Which genre? {i}\nA. x\nB. y\n", "labels": ["A", "B"],
            "candidates": ["x", "y"], "answer_index": 0, "prompt_sha256": str(i)}


def test_status_counts_answered_prompts_per_model_and_names_missing_files(tmp_path, shared_data, capsys):
    cfg = {"cache_dir": "cache", "variants": ["zero_shot"],
           "datasets": {"ml100k": {"domain": "movie", "format": "ml-100k",
                                   "source": {"path": str(shared_data / "movielens-100k/raw")},
                                   "measures": ["attr_genre", "mem_item_item"]}},
           "models": {"random": {"backend": "random", "seed": 0}, "other": {"backend": "random", "seed": 1}}}
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(cfg))
    # attr_genre's prompts exist (5, one asked twice); mem_item_item's are not built yet
    io.write_jsonl(tmp_path / "results/prompts/ml100k/attr_genre/zero_shot.jsonl",
                   [prompt(i) for i in range(5)] + [prompt(0)])
    fill_cache([prompt(i) for i in range(5)], lambda: RandomBackend("random", {"seed": 0}),
               ResponseCache(tmp_path / "cache/random.sqlite"))
    fill_cache([prompt(i) for i in (1, 3)], lambda: RandomBackend("other", {"seed": 1}),
               ResponseCache(tmp_path / "cache/other.sqlite"))
    args = ["status", "-d", str(tmp_path), "--configfile", str(tmp_path / "mine.yaml")]
    assert cli.main(args + ["--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    got = {(j["track"], j["scope"], j["model"]): (j["answered"], j["needed"], len(j["not_planned"]))
           for j in res["jobs"]}
    assert got == {("lrworld", "ml100k", "random"): (5, 5, 1), ("lrworld", "ml100k", "other"): (2, 5, 1)}
    assert [j["not_planned"] for j in res["jobs"]][0] == ["results/prompts/ml100k/mem_item_item/zero_shot.jsonl"]
    assert cli.main(args) == 0
    text = capsys.readouterr().out
    assert "lrworld/ml100k" in text and "1 of 2 prompt files not built yet" in text
    assert [ln.split()[:4] for ln in text.splitlines() if ln.startswith("  ")] == [
        ["other", "2", "/", "5"], ["random", "5", "/", "5"]]  # config order (yaml.safe_dump sorts)


def test_status_before_anything_ran_creates_no_cache(tmp_path, shared_data, capsys):
    cfg = {"cache_dir": "cache", "variants": ["zero_shot"],
           "datasets": {"ml100k": {"domain": "movie", "format": "ml-100k",
                                   "source": {"path": str(shared_data / "movielens-100k/raw")},
                                   "measures": ["attr_genre"]}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(cfg))
    assert cli.main(["status", "-d", str(tmp_path), "--configfile", str(tmp_path / "mine.yaml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == ["lrworld/ml100k", "  random       0 / 0       [1 of 1 prompt files not built yet: their prompts are not counted]"]
    assert not (tmp_path / "cache").exists()


def test_status_names_a_bad_config_key_in_one_line(tmp_path, capsys):
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump({"datasets": {"x": {"domain": "nope"}},
                                                            "models": {"random": {"backend": "random"}}}))
    assert cli.main(["status", "-d", str(tmp_path), "--configfile", str(tmp_path / "mine.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lrworld status: config: datasets.x") and len(err.strip().splitlines()) == 1
