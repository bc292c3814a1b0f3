"""benchmarks/bench_request_tokens.py: per measure, the prompt files' bytes / 4 against the real
token count, on hand-made files with a stand-in tokenizer (one token a word)."""

import json

from benchmarks import bench_request_tokens as mod

def test_rows_and_table_from_prompt_files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    # 2 prompts of 4 words; the file is 80 bytes, so bytes / 4 = 20 against 8 real tokens
    lines = [json.dumps({"qid": "q1", "prompt": "w w w w"}), json.dumps({"qid": "q2", "prompt": "x x x x"})]
    text = "\n".join(lines) + "\n"
    text = text + " " * (80 - len(text))
    (tmp_path / "a/zero_shot.jsonl").write_text(text)
    (tmp_path / "b/zero_shot.jsonl").write_text(json.dumps({"prompt": "one two"}).ljust(23) + "\n")  # 24 bytes: 6 vs 2
    rows = mod.measure_rows(tmp_path, lambda p: len(p.split()))
    assert rows == [("b", 1, 2, 6), ("a", 2, 8, 20)]  # by tokens per prompt: 2, then 4
    assert mod.docs_text(rows).splitlines() == [
        "| measure | prompts | tokens per prompt | bytes / 4 vs real tokens |", "|---|---:|---:|---:|",
        "| b | 1 | 2 | 3.00 |", "| a | 2 | 4 | 2.50 |", "| all | 3 | 3 | 2.60 |"]
