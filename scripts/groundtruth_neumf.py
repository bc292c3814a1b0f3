"""Snakemake: train NeuMF -> neumf.pt (state dict + training log + HR@10), embeddings.parquet."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

import pandas as pd
import torch

from lrworld.core import runlog
from lrworld.core.threads import limit_torch_threads
from lrworld.groundtruth.neumf import embeddings_frame, train_neumf_seeds
from lrworld.core.io import write_parquet
from lrworld.core.tensors import save_tensors

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
limit_torch_threads(sm.threads)
# pins what torch can pin (GPU kernels); CPU sums still depend on the thread count (docs/groundtruth.md)
torch.use_deterministic_algorithms(True, warn_only=True)
p = dict(sm.params.neumf)
inter = pd.read_parquet(sm.input.interactions)
res = train_neumf_seeds(inter, seeds=p["seeds"], seed=p["seed"], dataset=sm.wildcards.dataset, epochs=p["epochs"],
                        factors=p["factors"], layers=p["layers"], lr=p["lr"], batch_size=p["batch_size"],
                        num_neg=p["num_neg"], device=p["device"], eval_users=p["eval_users"], log=log.info)
save_tensors(res, sm.output.model)
write_parquet(sm.output.embeddings, embeddings_frame(res))
for r in res["seeds"]:
    log.info("neumf %s", runlog.stats_line({"hr10": r["hr10"], "hr10_users": r["hr10_users"], "log": r["log"],
                                            "config": r["config"]}))
