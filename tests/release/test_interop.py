"""The release's Parquet tables, dataset card and lm-eval tasks (lrworld/release/interop.py), on a
hand-written two-question release."""

import json
from pathlib import Path

import pyarrow.parquet as pq
import yaml

from lrworld.release import interop


def _prompt(qid, variant, n, gold):
    labels = ["A", "B", "C", "D"][:n] if n == 4 else [str(i) for i in range(n)]
    return {"qid": qid, "variant": variant, "prompt": f"Q {qid} {variant}\nAnswer:\n", "labels": labels,
            "candidates": [f"c{i}" for i in range(n)], "answer_index": gold, "prompt_sha256": "x" * 64}


def test_tables_card_and_one_task_per_single_answer_measure_and_variant(tmp_path):
    man = {"dataset": "toy", "domain": "movie", "lrworld_version": "0.1.0", "measures": ["mcq", "hit10"],
           "variants": ["zero_shot", "cot"], "audit": {"passed": True, "violations": 0},
           "licences": {"format ml-100k": "research use"},
           "config": {"dataset": {"toy": {"format": "recbole-atomic", "source": {"wheel": {
               "package": "recbole", "version": "1.2.1", "sha256": "9c" * 32, "member_dir": "d/ml-100k"}}}}}}
    for m, n in (("mcq", 4), ("hit10", 10)):
        for v in man["variants"]:
            (tmp_path / f"prompts/{m}").mkdir(parents=True, exist_ok=True)
            (tmp_path / f"prompts/{m}/{v}.jsonl").write_text(
                "".join(json.dumps(_prompt(q, v, n, g)) + "\n" for q, g in (("q1", 2), ("q2", 0))))
    # mcq is a knowledge measure whose golds one source gives; hit10 has no metadata source
    (tmp_path / "questions").mkdir()
    (tmp_path / "questions/mcq.report.json").write_text(json.dumps(
        {"measure": "mcq", "questions": 2, "facts": {"witnesses": {"1": 2}, "sources": {"hetrec_directors": 2}}}))
    (tmp_path / "questions/hit10.report.json").write_text(json.dumps({"measure": "hit10", "questions": 2}))
    written = interop.write(tmp_path, man)
    assert sorted(written) == ["README.md", "inspect_task.py", "lm_eval/_lrworld_toy.yaml",
                               "lm_eval/_lrworld_toy_cot.yaml",
                               "lm_eval/lrworld_toy_hit10.yaml", "lm_eval/lrworld_toy_hit10_cot.yaml",
                               "lm_eval/lrworld_toy_mcq.yaml", "lm_eval/lrworld_toy_mcq_cot.yaml",
                               "lm_eval/utils.py", "lrworld_parse.py", "parquet/hit10.parquet", "parquet/mcq.parquet"]
    # the release's parser is lrworld's, byte for byte
    assert (tmp_path / "lrworld_parse.py").read_bytes() == Path(interop.parse_module.__file__).read_bytes()
    t = pq.read_table(tmp_path / "parquet/mcq.parquet").to_pylist()
    assert [(r["qid"], r["variant"], r["answer_index"]) for r in t] == [
        ("q1", "zero_shot", 2), ("q2", "zero_shot", 0), ("q1", "cot", 2), ("q2", "cot", 0)]
    assert t[0]["labels"] == ["A", "B", "C", "D"] and t[0]["prompt"] == "Q q1 zero_shot\nAnswer:\n"

    text = (tmp_path / "lm_eval/lrworld_toy_hit10.yaml").read_text()
    assert text.endswith("custom_dataset: !function utils.load_table\nprocess_docs: !function utils.only_zero_shot\n")
    task = yaml.safe_load(text.replace("!function ", ""))
    assert task["output_type"] == "multiple_choice" and task["target_delimiter"] == ""
    # cot is scored by generated text, read by lrworld's parser: a generation task with its filter
    cot = yaml.safe_load((tmp_path / "lm_eval/lrworld_toy_hit10_cot.yaml").read_text().replace("!function ", ""))
    assert cot["output_type"] == "generate_until" and cot["doc_to_target"] == "{{labels[answer_index]}}"
    assert cot["filter_list"][0]["filter"][0] == {"function": "custom", "filter_fn": "utils.lrworld_parse"}
    assert cot["metric_list"][0]["metric"] == "exact_match" and cot["generation_kwargs"]["do_sample"] is False
    assert "dataset_path" not in task  # lm-eval would resolve it against the working directory
    assert task["dataset_kwargs"]["data_files"]["test"] == "parquet/hit10.parquet"
    assert task["metadata"]["apply_chat_template"] is True and "--apply_chat_template" in task["metadata"]["chat_template_rule"]
    group = yaml.safe_load((tmp_path / "lm_eval/_lrworld_toy.yaml").read_text())
    # one group per variant: a group's figure never averages two variants
    assert group["group"] == "lrworld_toy" and group["task"] == ["lrworld_toy_mcq", "lrworld_toy_hit10"]
    group = yaml.safe_load((tmp_path / "lm_eval/_lrworld_toy_cot.yaml").read_text())
    assert group["task"] == ["lrworld_toy_mcq_cot", "lrworld_toy_hit10_cot"]
    assert group["aggregate_metric_list"][0]["metric"] == "exact_match"
    ns = {"__file__": str(tmp_path / "lm_eval/utils.py")}
    exec((tmp_path / "lm_eval/utils.py").read_text(), ns)
    assert ns["RELEASE"] == tmp_path.resolve()

    class Docs(list):
        def filter(self, f):
            return Docs(d for d in self if f(d))

    assert [d["qid"] for d in ns["only_cot"](Docs(t))] == ["q1", "q2"]

    card = (tmp_path / "README.md").read_text()
    header = yaml.safe_load(card.split("---")[1])
    assert header["configs"][0] == {"config_name": "mcq", "data_files": [{"split": "test", "path": "parquet/mcq.parquet"}]}
    assert "- format ml-100k: research use" in card
    assert "`answer_index`" in card and "HitRate@1" in card and "--apply_chat_template" in card
    assert "`recbole==1.2.1` wheel (sha256 `" + "9c" * 32 + "`)" in card
    assert "--tasks lrworld_toy_mcq" in card and "--tasks lrworld_toy " in card  # tasks the release holds
    assert "## Sources of the golds" in card and "- `mcq`: 100% single-source (hetrec_directors)" in card
    assert "`hit10`" not in card.split("## Sources of the golds")[1]
    assert "`lrworld_toy_cot`" in card and "inspect_task.py@lrworld_toy" in card  # the path rule Inspect needs
    # per variant, what its prompts end in and how it is scored; row counts; citation
    assert "`zero_shot` prompts end in `Answer:` and a newline" in card and "- `cot`: scored by generated text" in card
    assert header["dataset_info"][0] == {"config_name": "mcq", "splits": [{"name": "test", "num_examples": 4}]}
    assert "eprint = {2512.17389}" in card and "tokenizer=<its hf tokenizer>" in card


def test_a_measure_without_one_gold_option_gets_no_task(tmp_path):
    df = interop.pd.DataFrame({"labels": [["A", "B", "C", "D"], ["A", "B", "C", "D"]], "answer_index": [1, None]})
    assert not interop.single_answer(df)
    assert interop.single_answer(df.iloc[:1])


def test_the_inspect_task_asks_the_prompt_up_to_its_options():
    ns = {"__file__": "/r/inspect_task.py"}
    code = interop.INSPECT_TASK.format(dataset="toy", measures=["m"], variants=["zero_shot"], metric="x",
                                       generating=[], gen_tokens=8)
    exec(code[code.index("def _is_options"):code.index("def samples")], ns)
    row = {"prompt": "History:\n1. X\n2. Y\n\nWhich next?\n0: P\n1: Q\n\nReply with its index.\nAnswer:\n",
           "labels": ["0", "1"]}
    assert ns["question"](row) == "History:\n1. X\n2. Y\n\nWhich next?"
    row = {"prompt": "Which genre?\nA. War\nB. Comedy\nC. Crime\nD. Horror\n\nAnswer:\n", "labels": list("ABCD")}
    assert ns["question"](row) == "Which genre?"


def test_a_measures_extra_variants_are_exported_as_they_are_scored(tmp_path):
    # mcq is asked in zero_shot and (extra_variants) shuffle1 and cot; hit10 in zero_shot only
    man = {"dataset": "toy", "domain": "movie", "lrworld_version": "0.1.0", "measures": ["mcq", "hit10"],
           "variants": ["zero_shot"], "audit": {"passed": True, "violations": 0}, "licences": {},
           "config": {"dataset": {"toy": {"format": "ml-100k", "extra_variants": {"mcq": ["shuffle1", "cot"]}}}}}
    for m, n, vs in (("mcq", 4, ["zero_shot", "shuffle1", "cot"]), ("hit10", 10, ["zero_shot"])):
        (tmp_path / f"prompts/{m}").mkdir(parents=True, exist_ok=True)
        for v in vs:
            (tmp_path / f"prompts/{m}/{v}.jsonl").write_text(json.dumps(_prompt("q1", v, n, 1)) + "\n")
    assert interop.variants_of(man, "mcq") == ["zero_shot", "shuffle1", "cot"]
    assert interop.all_variants(man) == ["zero_shot", "shuffle1", "cot"]
    written = interop.write(tmp_path, man)
    assert [w for w in sorted(written) if w.startswith("lm_eval/lrworld")] == [
        "lm_eval/lrworld_toy_hit10.yaml", "lm_eval/lrworld_toy_mcq.yaml", "lm_eval/lrworld_toy_mcq_cot.yaml",
        "lm_eval/lrworld_toy_mcq_shuffle1.yaml"]
    assert {"lm_eval/_lrworld_toy_shuffle1.yaml", "lm_eval/_lrworld_toy_cot.yaml"} <= set(written)
    t = pq.read_table(tmp_path / "parquet/mcq.parquet").to_pylist()
    assert [r["variant"] for r in t] == ["zero_shot", "shuffle1", "cot"]
    # cot, asked on one measure only, is still a generation task there
    cot = yaml.safe_load((tmp_path / "lm_eval/lrworld_toy_mcq_cot.yaml").read_text().replace("!function ", ""))
    assert cot["output_type"] == "generate_until"
    assert "def only_shuffle1(docs)" in (tmp_path / "lm_eval/utils.py").read_text()
    assert "'shuffle1'" in (tmp_path / "inspect_task.py").read_text()
