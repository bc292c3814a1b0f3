"""`snakemake --profile profiles/slurm` against a real SLURM cluster (CI: .ci/slurm/test.sh starts a
single-node one with a fake GPU gres). Checks, from SLURM's own accounting (sacct), that only the
GPU models' inference jobs asked for GPUs (--gpus=1, --gpus=fake:1) and ran in the GPU partition,
that each inference job's time limit and memory (-t, --mem) follow from its model's sizing keys
and its prompt files (a small and a large model; the retry of a killed job asks for twice as
much), that tiny jobs were bundled into group jobs, that a scancel'ed job is reported with its
SLURM state (retries 0) or resubmitted (the profile's retries: 1), that a rerun finishes the rest,
and that the table equals a local run's. Without sbatch (or a reachable controller) the tests are skipped, unless
LRWORLD_SLURM_REQUIRED=1 (CI), where they fail."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.graph import job_counts

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "profiles" / "slurm"
SNAKEMAKE = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile")]
GPU_MODELS = {"random-gpu": "gres/gpu=1", "random-typed": "gres/gpu:fake=1"}
MODELS = {
    "random": {"backend": "random", "seed": 0},                         # CPU: no GPU request
    # --gpus=1, and sized like a large model: 2 prompt tokens/s, 20 GB of host memory
    "random-gpu": {"backend": "random", "seed": 1, "gpus": 1, "throughput_tokens_s": 2, "mem_gb": 20,
                   "startup_s": 60},
    "random-typed": {"backend": "random", "seed": 2, "gpus": 1, "gpu_model": "fake"},  # --gpus=fake:1
}
REQUIRED = os.environ.get("LRWORLD_SLURM_REQUIRED") == "1"
# the SLURM comment of an LRWorld answer job on dataset ml, followed by the model's name
ANSWER = "rule_answer_wildcards_lrworld_ml_"


def _cluster_problem() -> str | None:
    if shutil.which("sbatch") is None:
        return "sbatch not found: SLURM is not installed (CI installs it: .ci/slurm/test.sh)"
    ping = subprocess.run(["scontrol", "ping"], capture_output=True, text=True)
    if ping.returncode != 0 or "UP" not in ping.stdout:
        return f"no SLURM controller reachable (start one: .ci/slurm/cluster.sh start): {ping.stdout}{ping.stderr}"
    if subprocess.run(["sacct", "-n", "-X", "-S", "now"], capture_output=True).returncode != 0:
        return "sacct does not work: the cluster has no accounting (slurmdbd)"
    return None


@pytest.fixture(scope="module")
def cluster():
    problem = _cluster_problem()
    if problem:
        if REQUIRED:
            pytest.fail(problem)
        pytest.skip(problem)


def write_config(workdir: Path, shared_data: Path):
    workdir.mkdir(parents=True, exist_ok=True)
    cfg = {
        "seed": 11, "cache_dir": "cache",
        "questions": {"history_length": 5, "per_measure": 40},
        "variants": ["zero_shot"],
        "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                            "source": {"path": str(shared_data / "movielens-100k/raw")},
                            "measures": ["attr_genre"]}},
        "models": MODELS,
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(cfg))


def slurm_env():
    return {**os.environ, "LRWORLD_SLURM_PARTITION": "cpu", "LRWORLD_SLURM_GPU_PARTITION": "gpu",
            "LRWORLD_SLURM_ACCOUNT": os.environ.get("LRWORLD_SLURM_ACCOUNT", "lrworld-ci")}


def run_slurm(workdir: Path, *extra, cancel: str | None = None, timeout=420):
    """The user's command, `snakemake --profile profiles/slurm`, plus a shorter first status check for
    CI. With `cancel`, scancel the first running SLURM job whose comment (rule and wildcards) contains it."""
    log = workdir / f"slurm-run-{time.strftime('%H%M%S')}.log"
    cmd = [*SNAKEMAKE, "-d", str(workdir), "--profile", str(PROFILE),
           "--slurm-init-seconds-before-status-checks", "2", "--verbose", *extra]  # verbose: the sbatch calls
    print(f"\n$ {' '.join(cmd)}", flush=True)
    t0 = time.time()
    cancelled = None
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=slurm_env())
        try:
            while proc.poll() is None:
                if time.time() - t0 > timeout:
                    proc.terminate()  # Snakemake cancels its SLURM jobs on SIGTERM
                    try:
                        proc.wait(60)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                    raise AssertionError(f"snakemake did not finish in {timeout} s:\n{log.read_text()[-4000:]}")
                if cancel and cancelled is None:
                    q = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-o", "%i|%T|%k"],
                                       capture_output=True, text=True).stdout
                    for line in q.splitlines():
                        jobid, state, comment = line.split("|", 2)
                        if cancel in comment:
                            subprocess.run(["scancel", jobid], check=True)
                            cancelled = jobid
                            print(f"scancel {jobid} ({state}, {comment})", flush=True)
                            break
                time.sleep(0.5)
        finally:
            if proc.poll() is None:
                proc.kill()
    text = log.read_text()
    print(f"snakemake exited {proc.returncode} after {time.time() - t0:.0f} s; log {log}", flush=True)
    if cancel:
        assert cancelled, f"no SLURM job matching {cancel!r} was seen:\n{text[-4000:]}"
    return proc.returncode, text, cancelled


def sacct_rows(jobids):
    out = subprocess.run(["sacct", "-n", "-X", "-P", "-j", ",".join(jobids),
                          "-o", "JobID,Partition,State,ReqTRES,Comment"],
                         capture_output=True, text=True, check=True).stdout
    return [dict(zip(["id", "partition", "state", "tres", "comment"], line.split("|", 4)))
            for line in out.splitlines() if line]


def submitted_ids(text):
    return [line.split("SLURM jobid ")[1].split()[0] for line in text.splitlines() if "SLURM jobid " in line]


def expected_size(workdir: Path, model: dict, attempt: int) -> tuple[int, int]:
    """(-t minutes, --mem MB) as docs/slurm.md states them: tokens = prompt bytes / 4; time =
    (startup + tokens / throughput) x 1.5, at least 10 min; memory = mem_gb x 1024 x 1.25, at least
    2000 MB; both times the attempt. Model keys not set: the random backend's defaults."""
    tokens = math.ceil((workdir / "results/prompts/ml/attr_genre/zero_shot.jsonl").stat().st_size / 4)
    seconds = model.get("startup_s", 0) + tokens / model.get("throughput_tokens_s", 100000)
    return (max(10, math.ceil(seconds * 1.5 * attempt / 60)),
            max(2000, math.ceil(model.get("mem_gb", 2) * 1024 * 1.25 * attempt)))


def flag(call: str, name: str) -> int:
    return int(re.search(rf"(?:^| ){name} (\d+)", call).group(1))


def sbatch_calls(text):
    """{comment: [sbatch options]} from the plugin's own log lines (--verbose), without -D and --wrap."""
    calls = {}
    for line in text.splitlines():
        if "sbatch call: sbatch " in line:
            call = re.sub(r" -D \S+", "", line.split("sbatch call: ", 1)[1].split(" --wrap=")[0])
            calls.setdefault(call.split("--comment ")[1].split()[0].strip("'"), []).append(call)
    return calls



def test_profile_has_no_site_names():
    """Partition and account come from the environment, never from the committed profile."""
    prof = yaml.safe_load((PROFILE / "config.yaml").read_text())
    assert prof["executor"] == "slurm"
    for key in ("slurm_partition", "slurm_account"):
        assert "environ.get" in prof["default-resources"][key]
    for res in prof.get("set-resources", {}).values():
        assert "slurm_partition" not in res and "slurm_account" not in res


def test_group_jobs_are_as_wide_as_the_widest_rule():
    """A group job asks for `cores` CPUs (its members run in layers of that width), not the sum of
    its 20 members; `cores` also caps every rule's threads, so it must not be below any of them."""
    prof = yaml.safe_load((PROFILE / "config.yaml").read_text())
    threads = [int(t) for f in (ROOT / "rules").glob("*.smk") for t in re.findall(r"^\s+threads:\s*(\d+)", f.read_text(), re.M)]
    assert prof["cores"] == max(threads) == 2
    assert prof["group-components"] == {"render": 20, "scoring": 20}


class _Member:
    def __init__(self, res):
        self.resources, self.pipe_group, self.is_local = res, None, False


def test_a_group_of_20_score_jobs_asks_2_cpus_not_20():
    """Snakemake's own layout of a group job (GroupResources.basic_layered, as GroupJob.resources
    calls it) under the profile's `cores` and the score rule's requests."""
    from snakemake.resources import GroupResources, Resources

    prof = yaml.safe_load((PROFILE / "config.yaml").read_text())
    score = prof["set-resources"]["score"]
    members = [_Member({"_cores": 1, "_nodes": 1, "cpus_per_task": 1, **score})
               for _ in range(prof["group-components"]["scoring"])]
    unlimited = {k: sys.maxsize for k in ("cpus_per_task", "mem_mb", "runtime")}
    asked = GroupResources.basic_layered(
        toposorted_jobs=[set(members)], constraints=Resources.from_mapping({"_cores": prof["cores"], "_nodes": 100, **unlimited}),
        run_local=False, additive_resources=["runtime"], sortby=["runtime"])
    assert (asked["cpus_per_task"], asked["mem_mb"], asked["runtime"]) == (2, 500, 20)


def test_slurm_run_requests_gpus_only_for_gpu_rules_and_matches_local(cluster, tmp_path, shared_data):
    # the reference: the same config through the workstation profile
    local = tmp_path / "local"
    write_config(local, shared_data)
    t0 = time.time()
    proc = subprocess.run([*SNAKEMAKE, "-d", str(local), "--profile", str(ROOT / "profiles/local"), "--cores", "2"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(f"\nlocal run: {time.time() - t0:.0f} s", flush=True)

    work = tmp_path / "slurm"
    write_config(work, shared_data)

    # 1. a SLURM job killed with scancel and no retries left: reported with its SLURM state and id;
    #    keep-going finishes the independent jobs.
    rc, text, killed = run_slurm(work, "--retries", "0", cancel=ANSWER + "random-gpu")
    assert rc != 0
    assert f"SLURM-job '{killed}' failed, SLURM status is: 'CANCELLED" in text, text[-4000:]
    assert not (work / "results/tables/ml.csv").exists()
    first = submitted_ids(text)
    calls = sbatch_calls(text)

    # 2. the rerun (the plain profile command) submits only what is missing; its job is scancel'ed
    #    once more and the profile's `retries: 1` resubmits it.
    rc, text, killed2 = run_slurm(work, cancel=ANSWER + "random-gpu")
    assert rc == 0, text[-5000:]
    plan = job_counts(text)
    assert plan["answer"] == 1 and not {"ingest", "questions", "prompts"} & set(plan), plan
    assert f"SLURM-job '{killed2}' failed, SLURM status is: 'CANCELLED" in text
    assert "Trying to restart job" in text
    second = submitted_ids(text)
    for comment, cs in sbatch_calls(text).items():
        calls.setdefault(comment, []).extend(cs)

    # the sbatch calls the plugin made: --gpus for the GPU models' inference only
    print("\nsbatch calls (options):", flush=True)
    for comment, cs in calls.items():
        for call in cs:
            print(f"  {call}", flush=True)
            gpu_flags = [f for f in call.split() if f.startswith(("--gpus", "--gres"))]
            if "random-typed" in comment:
                assert gpu_flags == ["--gpus=fake:1"], call
            elif "random-gpu" in comment:
                assert gpu_flags == ["--gpus=1"], call
            else:
                assert gpu_flags == [], call
    assert sum(len(cs) for cs in calls.values()) == len(first) + len(second)

    # the inference jobs' time limits and memory, sized from the prompts on disk when submitted:
    # the small model on the floors, the large one by its throughput and memory; random-gpu's
    # calls are run 1 (cancelled), run 2 (cancelled) and its retry, which asks for twice as much
    sizes = {m: [(flag(c, "-t"), flag(c, "--mem")) for c in calls[ANSWER + m]] for m in MODELS}
    print(f"answer job sizes (-t min, --mem MB): {sizes}", flush=True)
    assert sizes["random"] == [expected_size(work, MODELS["random"], 1)] == [(10, 2560)]
    large = [expected_size(work, MODELS["random-gpu"], a) for a in (1, 1, 2)]
    assert sizes["random-gpu"] == large and large[0][0] > 60 and large[0][1] == 25600, sizes

    # the same table as the local run
    for ext in ("csv", "md"):
        assert (work / f"results/tables/ml.{ext}").read_bytes() == (local / f"results/tables/ml.{ext}").read_bytes()
    print((work / "results/tables/ml.md").read_text(), flush=True)

    # what SLURM itself recorded for every job of both runs
    rows = sacct_rows(first + second)
    print("\nsacct (JobID|Partition|State|ReqTRES|Comment):", flush=True)
    for r in rows:
        print(f"  {r['id']}|{r['partition']}|{r['state']}|{r['tres']}|{r['comment']}", flush=True)
    assert len(rows) == len(first) + len(second)
    answers = [r for r in rows if r["comment"].startswith("rule_answer_")]
    assert len(answers) == 3 + 2  # run 1: one per model; run 2: the killed one, resubmitted
    for r in rows:
        model = next((m for m in sorted(MODELS, key=len, reverse=True) if r["comment"] == ANSWER + m), None)
        if model in GPU_MODELS:
            assert GPU_MODELS[model] in r["tres"] and r["partition"] == "gpu", r
        else:
            assert "gres/gpu" not in r["tres"] and r["partition"] == "cpu", r
    gpu_typed = [r for r in answers if "random-typed" in r["comment"]]
    assert gpu_typed and all("gres/gpu:fake=1" in r["tres"] for r in gpu_typed)
    # the tiny jobs went as group jobs: the 3 scores are one SLURM job, never one each
    assert [r["comment"] for r in rows if "score" in r["comment"]] == ["rule_scoring_score"]
    assert [r["comment"] for r in rows if "prompts" in r["comment"]] == ["rule_render_prompts"]
    states = [r["state"].split()[0] for r in rows]
    assert states.count("CANCELLED") == 2 and states.count("COMPLETED") == len(rows) - 2, rows
