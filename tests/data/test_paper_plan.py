"""`snakemake -n` with config/paper.yaml plans the paper's 31 measures (Amazon 11, Netflix 10,
MovieLens-25M 10) and the two LastFM ones, fetching every URL source first, and not config.yaml's
ML-100K (its datasets replace config.yaml's); with every paper model enabled, each measure in the
variants the paper ran on it, and each model's answer and score jobs those of its own runs."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from lrworld.paper import experiments
from lrworld.data.paper_dataset import paper_dataset
from tests.graph import job_counts

ROOT = Path(__file__).resolve().parents[2]


def test_paper_config_plans_every_measure(tmp_path):
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    # Kaggle's catalogue and LLMRec's files have no direct URL, LLaRA's split is converted from its
    # pickle: the user puts them at these paths (relative to the working directory); stand-ins
    # let the plan be built.
    meta = paper["datasets"]["netflix"]["metadata"]
    for key in ("netflix_metadata", "llmrec_item_attribute", "llmrec_augmented"):
        (tmp_path / meta[key]).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / meta[key]).write_text("")
    (tmp_path / meta["llmrec_posters"]).mkdir(parents=True)
    lastfm = tmp_path / paper["datasets"]["lastfm"]["source"]["path"]  # the converted LLaRA split
    lastfm.mkdir(parents=True)
    for f in ("Test_data.jsonl", "id2name.txt"):
        (lastfm / f).write_text("")
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")  # as in a checkout: the Snakefile's configfile
    every = tmp_path / "every.yaml"  # every model of config/paper.yaml enabled, as `lrworld plan --paper-models`
    every.write_text(yaml.safe_dump({"models": {m: {"enabled": True} for m in paper["models"]}}))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-s", str(ROOT / "Snakefile"), "--configfile",
                           str(ROOT / "config/paper.yaml"), str(every), "-d", str(tmp_path),
                           "--cores", "1"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    planned = set(re.findall(r"output: results/questions/([^/]+)/([a-z_0-9]+)\.jsonl", out))
    want = {(ds, m) for ds, d in paper["datasets"].items() for m in d["measures"]}
    assert len(want) == 33 and want <= planned
    assert sum(1 for ds, _ in want if ds != "lastfm") == 31
    fetched = set(re.findall(r"output: results/raw/([^/]+)/manifest\.json", out))
    assert fetched == {"amazon", "netflix", "ml25m"}  # config.yaml's ml100k is not planned
    assert set(re.findall(r"output: results/data/([^/]+)/interactions\.parquet", out)) == set(paper["datasets"])
    assert set(re.findall(r"output: results/raw/([^/]+)/metadata/manifest\.json", out)) == {"amazon", "ml25m", "lastfm"}
    # the paper's variants per (dataset, measure), as lrworld.paper.experiments reads them from its
    # tables and figures: one prompt file per cell, k = 1..5 of its k-shot series
    prompts = set(re.findall(r"output: results/prompts/([^/]+)/([a-z_0-9]+)/([a-z_0-9]+)\.jsonl", out))
    by_paper = {}
    for ds, m, v in prompts:
        by_paper.setdefault((paper_dataset(paper["datasets"][ds]), m), set()).add(v)
    ks = tuple(paper["analysis"]["kshot"]["series"])
    assert by_paper == {k: set(v) for k, v in experiments.variants_per_measure(ks).items()}
    # one score_extra job per model and ablation cell of its own runs: noisy by Table 23's five
    # on 8 measures, Table 6's orders by its 10 rows on 3 measures, cot and 5 k on Netflix's 2
    # measures by §5.4's five, LlaVA-1.6's image on 3 multimodal measures
    cells = set(re.findall(r"results/scores/([^/]+)/([^/]+)/([a-z_0-9]+)/([a-z_0-9]+)\.json", out))
    extra = {c for c in cells if c[3] != "zero_shot"}
    assert len(extra) == job_counts(proc.stdout)["score_extra"] == 5 * 8 + 10 * 3 * 5 + 5 * 2 * 6 + 3
    assert {(ds, m, v) for ds, model, m, v in extra if model == "llava-v1.6-mistral-7b" and v == "visual"} == {
        (ds, "multimodal", "visual") for ds in ("amazon", "netflix", "ml25m")}
    assert not any(model in ("random", "falcon-7b-instruct") and v != "zero_shot" and not v.startswith("shuffle")
                   for _, model, _, v in extra)
    # the visual prompts are rendered from the captioned images (the captions requests)
    assert re.search(r"input: [^\n]*results/captions/netflix/requests\.jsonl[^\n]*\n\s*output: "
                     r"results/prompts/netflix/multimodal/visual\.jsonl", out)
