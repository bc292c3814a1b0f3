"""NeuMF training (one training, 2 epochs, ML-100K from a built results folder) with 1 and with 2
torch threads, side by side in one run: why the `neumf` rule asks for one thread.

    python benchmarks/bench_neumf_threads.py results/data/ml100k/interactions.parquet
"""

import subprocess
import sys
import time

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
    for threads in (1, 2):
        out = subprocess.run([sys.executable, "-c", CHILD, argv[0], str(threads)], capture_output=True, text=True,
                             check=True).stdout
        took[threads] = float(out.strip().splitlines()[-1])
        print(f"{threads} thread(s): {took[threads]:.1f} s")
    print(f"RATIO 2 threads / 1 thread: {took[2] / took[1]:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
