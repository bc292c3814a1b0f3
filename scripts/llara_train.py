"""Snakemake: train LLaRA's projector + LoRA (curriculum) for one dataset and `llara.trained` entry."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)
from lrworld.core import runlog
from lrworld.core.threads import limit_torch_threads
from lrworld.tracks.llara.hybrid.run import run_train

sm = snakemake  # noqa: F821
log = runlog.setup(sm)
limit_torch_threads(sm.threads)
p = sm.params
rec = run_train(sm.wildcards.ll_dataset, p.cfg, p.rec_model, p.base, p.model_cfg, dict(p.hparams),
                seed=int(p.hparams["seed"]), candidate_seed=int(p.candidate_seed), n_candidates=int(p.n_candidates),
                work_dir=p.work, out_adapter=sm.output.adapter, out_projector=sm.output.projector,
                out_record=sm.output.record, log=log.info)
log.info("%s steps (%s hybrid), %.1f s", rec["steps"], rec["hybrid_steps"], rec["seconds"])
