"""Extensions from an installed package (lrworld/core/plugins.py): a plugin written into a folder
with its dist-info (as `pip install --target` leaves it) and put on PYTHONPATH registers a backend,
a dataset format, a recommender, a knowledge measure with its templates and a ground-truth measure
with its artifact; the schema, the plan, the audit and the tables take them like built-in ones."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from lrworld.scoring.table import LEARNED_ROW
from tests.support.plugin_package import PACKAGE, write_plugin

ROOT = Path(__file__).resolve().parents[1]


def env_with(site: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}


def python(site: Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=env_with(site), capture_output=True, text=True, cwd=ROOT)


def snakemake(site: Path, work: Path, *args, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(work),
                           "--cores", "2", *args], env=env_with(site), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


def config(work: Path, shared_data: Path, **models) -> Path:
    cfg = {"seed": 3, "cache_dir": str(work / "cache"), "questions": {"per_measure": 20},
           "groundtruth": {"n_questions": 20},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "measures": ["attr_genre", "plug_genre", "plug_cooc"],
                               "source": {"path": str(shared_data / "movielens-100k/raw")}}},
           "models": {"random": {"backend": "random"}, **models}}
    path = work / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture
def site(tmp_path):
    return write_plugin(tmp_path / "site")


CHECK = f"""
import json
from lrworld.config.assembly import schema
from lrworld.data.formats import FORMATS
from lrworld.groundtruth.artifacts import REGISTRY as ARTIFACTS
from lrworld.models.registry import backends
from lrworld.prompts.render import template_path
from lrworld.questions import measures
from lrworld.recsys.registry import recommenders
s = json.dumps(schema())
print(json.dumps({{
    "backend": "slotter" in backends(), "format": "toy-tsv" in FORMATS, "recommender": "plugrec" in recommenders(),
    "measures": [m.id for m in measures.MEASURES][-2:], "artifact": ARTIFACTS.get("plug_pairs").make,
    "template": str(template_path("movie", "plug_genre", "zero_shot")),
    "in_schema": ["slotter" in s, "toy-tsv" in s, "plugrec" in s]}}))
"""


def test_each_kind_registers_from_an_installed_package(site):
    proc = python(site, CHECK)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    assert got == {"backend": True, "format": True, "recommender": True, "measures": ["plug_genre", "plug_cooc"],
                   "artifact": f"{PACKAGE}.cooc:plug_pairs",
                   "template": str(site / PACKAGE / "templates/movie/plug_genre/zero_shot.txt"),
                   "in_schema": [True, True, True]}
    # without the package on the path, none of it is there
    bare = subprocess.run([sys.executable, "-c", "from lrworld.models.registry import backends; "
                           "from lrworld.questions import measures; "
                           "print('slotter' in backends(), 'plug_genre' in measures.REGISTRY)"],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert bare.stdout.split() == ["False", "False"], bare.stderr[-2000:]

def test_the_plan_takes_plugin_entries_and_checks_their_keys(site, tmp_path, shared_data):
    work = tmp_path / "work"
    work.mkdir()
    config(work, shared_data, slot={"backend": "slotter", "slots": 2})
    proc = snakemake(site, work, "-n", check=False)
    assert proc.returncode != 0 and "models.slot.slots: unknown key for backend 'slotter'" in proc.stdout + proc.stderr
    config(work, shared_data, slot={"backend": "slotter", "slot": 2})
    out = snakemake(site, work, "-n").stdout
    assert "results/gt/ml/plug_pairs.parquet" in out and "results/questions/ml/plug_cooc.jsonl" in out
    assert "results/prompts/ml/plug_genre/zero_shot.jsonl" in out and "results/answers/lrworld/ml/slot.json" in out


def test_a_plugin_folder_named_in_config_is_on_the_path_of_the_plan_and_its_jobs(site, tmp_path, shared_data):
    work = tmp_path / "work"
    work.mkdir()
    cfg = config(work, shared_data, slot={"backend": "slotter", "slot": 2})
    bare = {**os.environ, "PYTHONPATH": str(ROOT)}

    def plan():
        return subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(work),
                               "-n", "--cores", "1"], env=bare, capture_output=True, text=True)

    proc = plan()  # without the folder, the backend is unknown
    assert proc.returncode != 0 and "slotter" in proc.stdout + proc.stderr
    cfg.write_text(cfg.read_text() + f"plugins: [{tmp_path / 'nowhere'}]\n")
    proc = plan()
    assert proc.returncode != 0 and f"config: plugins[0]: folder {tmp_path / 'nowhere'} not found" in proc.stdout + proc.stderr
    cfg.write_text(cfg.read_text().replace(str(tmp_path / "nowhere"), str(site)))
    proc = plan()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "results/gt/ml/plug_pairs.parquet" in proc.stdout and "results/answers/lrworld/ml/slot.json" in proc.stdout
    # `lrworld plan` reads the same config, so it sees the same registries
    cli = subprocess.run([sys.executable, "-m", "lrworld", "plan", "-d", str(work), "--json"], env=bare,
                         capture_output=True, text=True, cwd=ROOT)
    assert cli.returncode == 0, cli.stderr[-2000:]
    jobs = json.loads(cli.stdout)["costs"]["jobs"]
    assert {j["model"]: j["backend"] for j in jobs} == {"random": "random", "slot": "slotter"}


def test_a_plugin_that_does_not_load_is_named_in_one_line(tmp_path):
    site = tmp_path / "site"
    dist = site / "brokenplug-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: brokenplug\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[lrworld.backends]\nbroken = brokenplug_missing.backend\n")
    proc = python(site, "from lrworld.models.registry import backends; backends()")
    assert proc.returncode != 0
    assert ("PluginError: entry point lrworld.backends:broken = 'brokenplug_missing.backend' (package brokenplug "
            "0.1): ModuleNotFoundError: No module named 'brokenplug_missing'") in proc.stderr


def lrworld(work: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lrworld", *args, "-d", str(work)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def plugin_digest(site: Path, files) -> dict:
    hashed = {f: hashlib.sha256((site / f).read_bytes()).hexdigest() for f in sorted(files)}
    return {"files": hashed, "sha256": hashlib.sha256(json.dumps(hashed, sort_keys=True, separators=(",", ":"))
                                                     .encode()).hexdigest()}


@pytest.mark.slow
def test_plugin_entries_run_through_the_graph_to_the_table_and_the_audit(site, tmp_path, shared_data):
    work = tmp_path / "work"
    work.mkdir()
    cfg = config(work, shared_data, slot={"backend": "slotter", "slot": 2})
    # the folder named in config, not PYTHONPATH: every job (ingest, artifact, questions, answers,
    # audit, table) finds the plugin through the path the plan hands it
    cfg.write_text(cfg.read_text() + f"plugins: [{site}]\n")
    snakemake(tmp_path / "not-a-site", work)
    table = pd.read_csv(work / "results/tables/ml.csv").set_index("model")
    prompts = [json.loads(line) for line in (work / "results/prompts/ml/plug_genre/zero_shot.jsonl").open()]
    assert len(prompts) == 20 and list(table.index) == ["random", LEARNED_ROW, "slot"]
    # the plugin backend always picks slot 2: its score is the share of answers there
    assert table.loc["slot", "plug_genre"] == pytest.approx(sum(p["answer_index"] == 2 for p in prompts) / 20, abs=1e-4)
    assert 0 <= table.loc["random", "plug_cooc"] <= 1
    audit = json.loads((work / "results/audit/ml.json").read_text())
    assert audit["passed"] and {"plug_genre", "plug_cooc"} <= set(audit["measures"])

    # the plugin's cell names the plugin: its version and the digest of the modules its jobs ran
    # and of the template its prompts read
    record = json.loads((work / "results/provenance/ml/slot/plug_genre/zero_shot.json").read_text())
    plugin = record["code"]["plugins"]["lrworld-toyplug"]
    # (every module of this plugin runs in some job of the chain: its entry points' modules in the
    # jobs whose registries load them, cooc.py in the ground-truth jobs)
    files = [f"lrworld_toyplug/{m}.py" for m in ("__init__", "artifacts", "backend", "cooc", "measures", "rec",
                                                 "tsv_format")] + ["lrworld_toyplug/templates/movie/plug_genre/zero_shot.txt"]
    folder = os.path.relpath(site, work)  # relative to the working directory, as the checkout is
    assert plugin == {"version": "0.1", "folder": folder, **plugin_digest(site, files)}
    assert lrworld(work, "verify").returncode == 0
    explained = lrworld(work, "explain", "results/tables/ml.csv", "slot", "plug_genre").stdout
    assert f"plugin:   lrworld-toyplug 0.1, sha256 {plugin['sha256'][:12]} over 8 files in {folder}" in explained

    # an edit of the plugin's backend: `verify` names the plugin, and the next run re-runs its cell
    backend = site / "lrworld_toyplug/backend.py"
    backend.write_text(backend.read_text() + "# edited\n")
    proc = lrworld(work, "verify")
    assert proc.returncode == 1 and (f"CHANGED lrworld_toyplug/backend.py (plugin lrworld-toyplug 0.1, rule source)"
                                     in proc.stdout), proc.stdout + proc.stderr
    dry = snakemake(tmp_path / "not-a-site", work, "-n").stdout
    assert "results/answers/lrworld/ml/slot.json" in dry and "results/scores/ml/slot/plug_genre/zero_shot.json" in dry
    snakemake(tmp_path / "not-a-site", work)
    again = json.loads((work / "results/provenance/ml/slot/plug_genre/zero_shot.json").read_text())
    assert again["code"]["plugins"]["lrworld-toyplug"] == {"version": "0.1", "folder": folder,
                                                           **plugin_digest(site, files)} != plugin
    assert lrworld(work, "verify").returncode == 0
