"""What the plan trusts is read by content, through the real Snakemake CLI on real ML-100K from
../shared/data with the random model: a `path:` source under results/ edited with its mtime
restored, a release folder swapped for another with old mtimes (`cp -a`), and cache replies that
changed under a `--forcerun answer` each re-run what depends on them; `lrworld pack` re-verifies
the build and never deletes what it did not write."""

import json
import os
import re
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
import yaml

from lrworld.cli import main
from lrworld.core import io
from tests.graph import job_counts, snakemake

pytestmark = pytest.mark.slow
HOUR = 3600


def config(folder: Path, source: dict) -> None:
    cfg = {"cache_dir": ".lrworld-cache", "questions": {"history_length": 5, "per_measure": 20},
           "variants": ["zero_shot"], "analysis": {"enabled": False},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k", "source": source, "measures": ["attr_genre"]}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.yaml").write_text(yaml.safe_dump(cfg))


def smk(folder: Path, *args, check=True):
    return snakemake(folder, *args, "--configfile", str(folder / "run.yaml"), check=check)


def backdate(path: Path, seconds: float = HOUR) -> None:
    """Every file under `path` an hour older: what `cp -a` / `tar x` of an older copy leaves."""
    for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
        st = p.stat()
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def keep_mtime(path: Path, edit) -> None:
    st = path.stat()
    edit(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_data):
    """A build whose `path:` source lies under results/ (a copy of ML-100K's raw folder)."""
    folder = tmp_path_factory.mktemp("digests") / "built"
    src = folder / "results/src"
    src.mkdir(parents=True)
    for name in ("u.data", "u.item", "u.user", "u.genre", "u.occupation", "u.info"):
        shutil.copy2(shared_data / "movielens-100k/raw" / name, src / name)
    config(folder, {"path": "results/src"})
    smk(folder)
    assert job_counts(smk(folder, "-n").stdout) == {}
    return folder


def copy_of(built: Path, to: Path) -> Path:
    shutil.copytree(built, to, symlinks=True)  # copy2: mtimes kept
    return to


def test_a_path_source_under_results_edited_with_its_mtime_kept_re_runs_ingest(built, tmp_path):
    run = copy_of(built, tmp_path / "run")
    assert job_counts(smk(run, "-n").stdout) == {}  # a moved build plans nothing (relative digest keys)

    def change_200_ratings(p: Path) -> None:
        lines = p.read_text().splitlines()
        for i in range(200):
            u, it, r, ts = lines[i].split("\t")
            lines[i] = "\t".join([u, it, str(int(r) % 5 + 1), ts])
        p.write_text("\n".join(lines) + "\n")

    keep_mtime(run / "results/src/u.data", change_200_ratings)
    plan = job_counts(smk(run, "-n").stdout)
    assert plan.get("ingest") == 1 and plan.get("score") == 1 and plan.get("table") == 1
    smk(run)
    assert job_counts(smk(run, "-n").stdout) == {}


def test_pack_refuses_a_build_whose_prompts_changed_since_it_was_built(built, tmp_path, capsys):
    run = copy_of(built, tmp_path / "run")
    prompts = run / "results/prompts/ml/attr_genre/zero_shot.jsonl"

    def hint(p: Path) -> None:
        rows = io.read_jsonl(p)
        rows[0]["prompt"] += f"\nHint: the answer is {rows[0]['labels'][rows[0]['answer_index']]}."
        io.write_jsonl(p, rows)

    keep_mtime(prompts, hint)
    capsys.readouterr()
    t0 = time.monotonic()
    assert main(["pack", "ml", str(tmp_path / "rel"), "-d", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"lrworld pack: {run}/results/prompts/ml/attr_genre/zero_shot.jsonl: changed since the "
                          "build of 'ml'") and "\n" not in err, err
    assert not (tmp_path / "rel").exists() and not (tmp_path / "rel.partial").exists()
    assert time.monotonic() - t0 < 30


def test_pack_deletes_nothing_it_did_not_write(built, tmp_path, capsys):
    out = tmp_path / "rel"
    out.write_text("mine\n")
    assert main(["pack", "ml", str(out), "-d", str(built)]) == 2
    assert capsys.readouterr().err.strip() == f"lrworld pack: {out}: exists and is not a folder; give a new folder as OUT"
    assert out.read_text() == "mine\n"
    out.unlink()
    mine = tmp_path / "rel.partial"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n")
    assert main(["pack", "ml", str(out), "-d", str(built)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"lrworld pack: {mine}: already exists and was not written by lrworld pack") and "\n" not in err
    assert (mine / "notes.txt").read_text() == "mine\n" and not out.exists()
    shutil.rmtree(mine)
    assert main(["pack", "ml", str(out), "-d", str(built)]) == 0
    assert not mine.exists() and main(["verify", str(out)]) == 0
    assert not (out / ".lrworld-pack-partial").exists()


def test_a_release_folder_swapped_with_old_mtimes_re_runs_its_copies_and_scores(built, tmp_path):
    first = tmp_path / "first"
    assert main(["pack", "ml", str(first), "-d", str(built)]) == 0
    # another release: its last question (and prompt) dropped, its manifest rewritten to match
    # (it verifies on its own and passes the audit)
    second = tmp_path / "second"
    shutil.copytree(first, second)
    q = second / "questions/attr_genre.jsonl"
    man = json.loads((second / "release.json").read_text())
    for rel in ("questions/attr_genre.jsonl", "prompts/attr_genre/zero_shot.jsonl"):
        io.write_jsonl(second / rel, io.read_jsonl(second / rel)[:-1])
        man["files"][rel] = io.sha256_file(second / rel)
    (second / "release.json").write_text(json.dumps(man))
    assert main(["verify", str(second)]) == 0
    backdate(second)

    run = tmp_path / "run"
    bench = run / "results/bench"  # the release folder, under results/ as a user may keep it
    shutil.copytree(first, bench)
    config(run, {"benchmark": "results/bench"})
    smk(run)
    assert job_counts(smk(run, "-n").stdout) == {}
    shutil.rmtree(bench)
    shutil.copytree(second, bench)  # cp -a: the older mtimes come along
    plan = job_counts(smk(run, "-n").stdout)
    assert plan.get("release_questions") == 1 and plan.get("release_prompts") == 1, plan
    assert plan.get("score") == 1 and plan.get("table") == 1, plan
    smk(run)
    assert (run / "results/questions/ml/attr_genre.jsonl").read_bytes() == q.read_bytes()
    assert json.loads((run / "results/scores/ml/random/attr_genre/zero_shot.json").read_text())["n"] == 19
    assert job_counts(smk(run, "-n").stdout) == {}


def test_a_re_asked_model_whose_replies_changed_re_scores(built, tmp_path, capsys):
    run = copy_of(built, tmp_path / "run")
    (cache,) = (run / ".lrworld-cache/responses/random/lrworld").glob("ml.*.sqlite")  # the answer job's shard
    score = run / "results/scores/ml/random/attr_genre/zero_shot.json"
    before = json.loads(score.read_text())
    # a purge and a new server: every reply now names option A
    con = sqlite3.connect(cache)
    rows = con.execute("SELECT key, record FROM responses").fetchall()
    for key, rec in rows:
        r = json.loads(rec)
        r["raw_text"], r["choice_index"] = "A", None
        con.execute("UPDATE responses SET record = ? WHERE key = ?", (json.dumps(r), key))
    con.commit()
    con.close()
    capsys.readouterr()
    assert main(["verify", "-d", str(run)]) == 1  # the scores differ from the cache
    assert re.search(r"CHANGED results/responses/ml/random/attr_genre/zero_shot.jsonl \(cache\): \d+ of 20 replies "
                     r"differ in the cache of random; rerun snakemake to re-score", capsys.readouterr().out)
    table_before = (run / "results/tables/ml.csv").read_text()
    proc = smk(run, "--forcerun", "answer")
    forced = job_counts(proc.stdout + proc.stderr)
    # one invocation: the re-asked replies are scored and tabled at once, nothing left to plan
    assert forced.get("answer") == 1 and forced.get("score") == 1 and forced.get("table") == 1, forced
    after = json.loads(score.read_text())
    assert after["answers_sha256"] != before["answers_sha256"]
    responses = io.read_jsonl(run / "results/responses/ml/random/attr_genre/zero_shot.jsonl")
    assert {r["parsed"] for r in responses} == {0}
    table = (run / "results/tables/ml.csv").read_text()
    assert f"{after['value']:.4f}" in table and f"{before['value']:.4f}" not in table, (table, after["value"])
    assert job_counts(smk(run, "-n").stdout) == {}
    capsys.readouterr()
    assert main(["verify", "-d", str(run)]) == 0
