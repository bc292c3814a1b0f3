"""NeuMF training (one training, 2 epochs, ML-100K from a built results folder) with 1 and with 2
torch threads, and with 2 threads waiting passively (OMP_WAIT_POLICY=PASSIVE, which the Snakefile
sets for every job), side by side in one run: why the `neumf` rule asks for one thread and jobs wait
passively. Run it on an idle machine and on a busy one (another job on the same cores).

    python benchmarks/bench_neumf_threads.py results/data/ml100k/interactions.parquet
"""

import os
import subprocess
import sys

CHILD = """
import sys, time, pandas as pd, torch
torch.set_num_threads(int(sys.argv[2]))
from lrworld.groundtruth.neumf import train_neumf_seeds
inter = pd.read_parquet(sys.argv[1])
t = time.perf_counter()
train_neumf_seeds(inter, seeds=1, seed=0, dataset="bench", epochs=2, eval_users=50, device="cpu", log=lambda *a: None)
print(time.perf_counter() - t)
"""


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    took = {}
    spinning = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    for label, threads, env in (("1 thread", 1, spinning), ("2 threads", 2, spinning),
                                ("2 threads, passive", 2, {**spinning, "OMP_WAIT_POLICY": "PASSIVE"})):
        out = subprocess.run([sys.executable, "-c", CHILD, argv[0], str(threads)], capture_output=True, text=True,
                             check=True, env=env).stdout
        took[label] = float(out.strip().splitlines()[-1])
        print(f"{label}: {took[label]:.1f} s")
    print(f"RATIO 2 threads / 1 thread: {took['2 threads'] / took['1 thread']:.1f}x; "
          f"2 threads passive / 1 thread: {took['2 threads, passive'] / took['1 thread']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
