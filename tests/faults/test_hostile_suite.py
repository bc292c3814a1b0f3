"""The hostile suite's counts in docs/security.md come from the suite: each class lists its tests,
the cases are counted from pytest's collection (a parametrized test counts each case), and the
block in the docs must be what this test writes (`LRWORLD_WRITE_DOCS=1` rewrites it)."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs/security.md"
BEGIN, END = "<!-- hostile-suite:begin (written by tests/faults/test_hostile_suite.py) -->", "<!-- hostile-suite:end -->"

# class -> the tests (file::function) that try it through the real interface
SUITE = {
    "silent-wrong": [
        "tests/faults/test_content_digests_graph.py::test_a_re_asked_model_whose_replies_changed_re_scores",
        "tests/faults/test_refusal_messages.py::test_a_model_named_like_the_captioner_is_refused_at_start",
        "tests/faults/test_content_digests_graph.py::test_a_release_folder_swapped_with_old_mtimes_re_runs_its_copies_and_scores",
        "tests/faults/test_content_digests_graph.py::test_a_path_source_under_results_edited_with_its_mtime_kept_re_runs_ingest",
        "tests/faults/test_content_digests_graph.py::test_pack_refuses_a_build_whose_prompts_changed_since_it_was_built",
        "tests/faults/test_model_identity.py::test_swapping_local_weights_in_place_asks_again",
        "tests/release/test_release_pin.py::test_an_edited_file_with_a_rewritten_manifest_is_refused_naming_release_json",
        "tests/release/test_release_pin.py::test_a_fetched_release_swapped_after_its_fetch_is_refused_at_start",
        "tests/faults/test_missing_outputs_graph.py::test_a_deleted_answer_summary_is_rebuilt_by_the_next_plain_run",
    ],
    "stuck / unbounded": [
        "tests/faults/test_release_manifest.py::test_a_manifest_entry_outside_the_release_stops_verify_in_one_line",
        "tests/faults/test_release_manifest.py::test_a_link_to_a_device_or_out_of_the_release_is_not_read",
        "tests/faults/test_release_manifest.py::test_an_archive_past_the_cap_stops_at_the_cap_in_one_line",
        "tests/faults/test_release_manifest.py::test_the_cap_counts_every_member_together_and_a_genuine_archive_passes",
        "tests/faults/test_release_manifest.py::test_the_default_cap_is_in_proportion_to_the_archive",
        "tests/faults/test_not_a_file_graph.py::test_a_path_source_file_that_is_not_a_regular_file_stops_the_plan_in_one_line",
        "tests/faults/test_not_a_file_graph.py::test_a_release_member_that_is_not_a_regular_file_stops_the_plan_in_one_line",
        "tests/core/test_io.py::test_hashing_or_reading_refuses_what_is_not_a_regular_file_at_once",
    ],
    "data loss": [
        "tests/faults/test_content_digests_graph.py::test_pack_deletes_nothing_it_did_not_write",
        "tests/inference/test_shards.py::test_no_two_answer_jobs_of_the_paper_plan_write_one_file",
        "tests/inference/test_shards.py::test_two_answer_jobs_of_one_model_at_once",
        "tests/inference/test_shards_graph.py::test_two_invocations_on_one_cache_dir_at_once",
        "tests/faults/test_full_disk_graph.py::test_full_disk_in_ingest_and_answer_then_resume",
        "tests/faults/test_missing_outputs_graph.py::test_a_release_file_edited_after_its_copy_stops_the_run_and_keeps_the_copy",
    ],
    "billed twice": [
        "tests/models/test_batch_api.py::test_a_tampered_store_is_reconciled_with_the_provider_and_bills_nothing_again",
    ],
    "exposure": [
        "tests/faults/test_secrets_in_logs.py::test_a_key_on_a_managed_server_command_and_in_the_environment_is_nowhere",
        "tests/faults/test_secrets_in_logs.py::test_a_key_in_a_url_path_or_fragment_stops_the_run_at_start",
    ],
    "orphan": [
        "tests/inference/test_servers.py::test_sigkill_of_the_job_stops_its_server_within_seconds",
        "tests/inference/test_servers.py::test_sigkill_of_the_run_that_holds_the_job_stops_the_job_and_its_server",
        "tests/inference/test_managed_server_graph.py::test_sigkill_of_snakemake_leaves_no_server_within_seconds",
        "tests/core/test_io.py::test_a_resumed_job_removes_what_a_killed_write_left_and_keeps_a_live_writers",
    ],
    "unclear error": [
        "tests/faults/test_refusal_messages.py::test_labels_with_inline_candidates_is_refused_at_start_naming_the_line",
        "tests/faults/test_refusal_messages.py::test_a_measure_with_no_buildable_question_names_the_field_and_the_fix",
        "tests/faults/test_refusal_messages.py::test_a_checkpoint_that_is_not_tensors_only_is_refused_naming_the_file",
        "tests/faults/test_missing_logprobs.py::test_no_answer_with_logprobs_fails_the_job_in_one_line",
        "tests/faults/test_full_disk_graph.py::test_a_read_only_results_folder_is_refused_at_start",
        "tests/groundtruth/test_workflow.py::test_a_dataset_too_small_for_its_measure_stops_in_one_line_without_a_traceback",
        "tests/models/test_openai_backend.py::test_a_timeout_that_fails_every_request_is_refused_at_start_naming_the_key",
    ],
}


def collected() -> list[str]:
    files = sorted({t.split("::")[0] for tests in SUITE.values() for t in tests})
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-n", "0",
                           "-m", "", *files], cwd=ROOT, capture_output=True, text=True)
    return [line for line in proc.stdout.splitlines() if "::" in line]


def block(ids: list[str]) -> str:
    rows, total = [], 0
    for kind, tests in SUITE.items():
        n = sum(1 for i in ids for t in tests if re.fullmatch(re.escape(t) + r"(\[.*\])?", i))
        total += n
        rows.append(f"| {kind} | {len(tests)} | {n} |")
    return "\n".join([BEGIN, "| class | tests | cases |", "|---|---|---|", *rows,
                      f"| all | {sum(len(t) for t in SUITE.values())} | {total} |", END])


def test_every_listed_test_exists_and_the_docs_show_the_suites_counts():
    ids = collected()
    missing = [t for tests in SUITE.values() for t in tests
               if not any(re.fullmatch(re.escape(t) + r"(\[.*\])?", i) for i in ids)]
    assert missing == []
    want = block(ids)
    text = DOC.read_text()
    if os.environ.get("LRWORLD_WRITE_DOCS"):
        start, end = text.find(BEGIN), text.find(END)
        assert start >= 0 and end > start, f"{DOC}: no hostile-suite block to rewrite"
        DOC.write_text(text[:start] + want + text[end + len(END):])
        text = DOC.read_text()
    assert want in text
