"""Snakemake entry: score one (dataset, model, measure, variant) response file."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.questions import measures
from lrworld.provenance.digest import answers_sha256
from lrworld.provenance.environment import JobClock
from lrworld.scoring.metrics import score

smk = snakemake  # noqa: F821
clock = JobClock()
log = runlog.setup(smk)
w = smk.wildcards
m = measures.get(smk.params.domain, w.measure)
records = io.read_jsonl(smk.input.responses)
result = score(records, m.primary_metric, m.n_candidates)
result.update({"dataset": w.dataset, "model": w.model, "measure": w.measure, "variant": w.variant,
               "responses": smk.input.responses, "answers_sha256": answers_sha256(records),
               "provenance": smk.output.score.replace("results/scores/", "results/provenance/", 1)})
log.info("%s", result)
io.write_json(smk.output.score, result)
clock.write(smk, smk.output.job)
