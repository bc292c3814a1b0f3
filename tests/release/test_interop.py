"""The release's Parquet tables, dataset card and lm-eval tasks (lrworld/release/interop.py), on a
hand-written two-question release."""

import json

import pyarrow.parquet as pq
import yaml

from lrworld.release import interop


def _prompt(qid, variant, n, gold):
    labels = ["A", "B", "C", "D"][:n] if n == 4 else [str(i) for i in range(n)]
    return {"qid": qid, "variant": variant, "prompt": f"Q {qid} {variant}\nAnswer:\n", "labels": labels,
            "candidates": [f"c{i}" for i in range(n)], "answer_index": gold, "prompt_sha256": "x" * 64}


def test_tables_card_and_one_task_per_mcq_measure_and_variant(tmp_path):
    man = {"dataset": "toy", "domain": "movie", "lrworld_version": "0.1.0", "measures": ["mcq", "hit10"],
           "variants": ["zero_shot", "cot"], "audit": {"passed": True, "violations": 0},
           "licences": {"format ml-100k": "research use"}}
    for m, n in (("mcq", 4), ("hit10", 10)):
        for v in man["variants"]:
            (tmp_path / f"prompts/{m}").mkdir(parents=True, exist_ok=True)
            (tmp_path / f"prompts/{m}/{v}.jsonl").write_text(
                "".join(json.dumps(_prompt(q, v, n, g)) + "\n" for q, g in (("q1", 2), ("q2", 0))))
    written = interop.write(tmp_path, man)
    assert sorted(written) == ["README.md", "lm_eval/lrworld_toy_mcq.yaml", "lm_eval/lrworld_toy_mcq_cot.yaml",
                               "lm_eval/utils.py", "parquet/hit10.parquet", "parquet/mcq.parquet"]
    t = pq.read_table(tmp_path / "parquet/mcq.parquet").to_pylist()
    assert [(r["qid"], r["variant"], r["answer_index"]) for r in t] == [
        ("q1", "zero_shot", 2), ("q2", "zero_shot", 0), ("q1", "cot", 2), ("q2", "cot", 0)]
    assert t[0]["labels"] == ["A", "B", "C", "D"] and t[0]["prompt"] == "Q q1 zero_shot\nAnswer:\n"

    text = (tmp_path / "lm_eval/lrworld_toy_mcq_cot.yaml").read_text()
    assert text.endswith("process_docs: !function utils.only_cot\n")
    task = yaml.safe_load(text.replace("!function ", ""))
    assert task["output_type"] == "multiple_choice" and task["target_delimiter"] == ""
    assert task["dataset_kwargs"]["data_files"]["test"] == "parquet/mcq.parquet"
    ns = {}
    exec((tmp_path / "lm_eval/utils.py").read_text(), ns)

    class Docs(list):
        def filter(self, f):
            return Docs(d for d in self if f(d))

    assert [d["qid"] for d in ns["only_cot"](Docs(t))] == ["q1", "q2"]

    card = (tmp_path / "README.md").read_text()
    header = yaml.safe_load(card.split("---")[1])
    assert header["configs"][0] == {"config_name": "mcq", "data_files": [{"split": "test", "path": "parquet/mcq.parquet"}]}
    assert "- format ml-100k: research use" in card
