"""The release's exports read by the tools themselves (lm-eval 0.4, Inspect AI, datasets), from a
folder that is not the release's, on a hand-written release of one 4-option and one 10-option
measure. The model runs are in benchmarks/check_lm_eval.py and benchmarks/check_inspect.py."""

import json

import pytest

from lrworld.release import interop
from tests.release.test_interop import _prompt

MAN = {"dataset": "toy", "domain": "movie", "lrworld_version": "0.1.0", "measures": ["mcq", "hit10"],
       "variants": ["zero_shot", "cot"], "audit": {"passed": True, "violations": 0},
       "licences": {"format ml-100k": "research use"},
       "config": {"dataset": {"toy": {"format": "ml-100k", "source": {"path": "raw"}}}}}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    rel = tmp_path_factory.mktemp("release")
    for m, n in (("mcq", 4), ("hit10", 10)):
        for v in MAN["variants"]:
            (rel / f"prompts/{m}").mkdir(parents=True, exist_ok=True)
            rows = [dict(_prompt(q, v, n, g), prompt=f"Q {q}\n" + "\n".join(
                f"{lab}{'.' if n == 4 else ':'} item {lab}" for lab in _prompt(q, v, n, g)["labels"]) + "\nAnswer:\n")
                for q, g in (("q1", 2), ("q2", 0))]
            (rel / f"prompts/{m}/{v}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    interop.write(rel, MAN)
    return rel


def test_lm_eval_loads_the_group_and_every_tasks_docs_from_another_folder(release, tmp_path, monkeypatch):
    from lm_eval import tasks
    monkeypatch.chdir(tmp_path)  # a `dataset_path: parquet` would be looked up here
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    tm = tasks.TaskManager(include_path=str(release / "lm_eval"), include_defaults=False)
    loaded = tasks.get_task_dict(["lrworld_toy", "lrworld_toy_cot"], tm)  # a group per variant
    flat = {}

    def walk(d):
        for k, v in d.items():
            walk(v) if isinstance(v, dict) else flat.__setitem__(getattr(v, "config").task, v)

    walk(loaded)
    assert sorted(flat) == ["lrworld_toy_hit10", "lrworld_toy_hit10_cot", "lrworld_toy_mcq", "lrworld_toy_mcq_cot"]
    docs = list(flat["lrworld_toy_hit10_cot"].test_docs())
    assert [(d["qid"], d["variant"], d["answer_index"]) for d in docs] == [("q1", "cot", 2), ("q2", "cot", 0)]
    t = flat["lrworld_toy_hit10"]
    assert t.doc_to_choice(docs[0]) == [str(i) for i in range(10)] and t.doc_to_target(docs[0]) == 2
    assert t.doc_to_text(docs[0]).endswith("Answer:\n")


def test_inspect_reads_the_same_questions_with_letters_for_the_options(release, tmp_path, monkeypatch):
    import importlib.util

    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("lrworld_toy_inspect", release / "inspect_task.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    task = mod.lrworld_toy(measure="hit10")
    samples = list(task.dataset)
    assert [(s.id, s.target) for s in samples] == [("q1", "C"), ("q2", "A")]
    assert samples[0].input == "Q q1" and samples[0].choices == [f"c{i}" for i in range(10)]
    assert len(list(mod.lrworld_toy().dataset)) == 4  # both measures, zero_shot
    with pytest.raises(ValueError, match="variant 'kshot3'"):
        mod.lrworld_toy(variant="kshot3")


def test_datasets_loads_the_release_by_its_cards_configs(release, tmp_path, monkeypatch):
    import datasets
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    ds = datasets.load_dataset(str(release), "hit10", split="test", cache_dir=str(tmp_path / "cache"))
    assert len(ds) == 4 and ds.column_names == interop.COLUMNS and len(ds[0]["labels"]) == 10


def test_inspects_cli_runs_the_cards_command_with_an_absolute_path_from_another_folder(release, tmp_path):
    import re
    import subprocess
    import sys
    from pathlib import Path

    card = (release / "README.md").read_text()
    cmd = re.search(r"^inspect eval (.+?) --model", card, re.M).group(1).replace("<this folder>", str(release))
    assert Path(cmd.split("@")[0]).is_absolute()
    inspect = Path(sys.executable).parent / "inspect"
    proc = subprocess.run([str(inspect), "eval", cmd, "--model", "mockllm/model", "-T", "measure=mcq",
                           "--log-dir", str(tmp_path / "logs"), "--display", "none"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(list((tmp_path / "logs").glob("*.eval"))) == 1
