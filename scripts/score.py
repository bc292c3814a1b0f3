"""Snakemake entry: the cells of one (dataset, model, measure), one per variant: their per-sample
responses read from the cache (no model is loaded), and their scores."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.inference import weights
from lrworld.inference.shards import ModelCache
from lrworld.inference.stage import collect_responses
from lrworld.questions import measures
from lrworld.provenance.digest import answers_sha256
from lrworld.provenance.environment import JobClock
from lrworld.scoring.metrics import score

smk = snakemake  # noqa: F821
clock = JobClock()
log = runlog.setup(smk)
w = smk.wildcards
identity = io.read_json(smk.input.answered)["identity"]
try:  # the answers read must be those of the weights the graph planned with
    weights.check(io.read_json(smk.input.identity), identity, smk.input.identity, smk.input.answered)
except weights.IdentityMismatch as exc:
    log.error("%s", exc)
    sys.exit(str(exc))
cache = ModelCache(smk.params.cache_dir, w.model)
m = measures.get(smk.params.domain, w.measure)
one = len(smk.params.variants) == 1 and "score" in smk.output.keys()  # score_extra: one cell, plain names
for variant in smk.params.variants:
    out = {kind: smk.output[kind if one else f"{kind}_{variant}"] for kind in ("responses", "score")}
    records = collect_responses(io.read_jsonl(smk.input["prompts" if one else f"prompts_{variant}"]), identity, cache)
    log.info("%s: %d responses, %d unparsed", variant, len(records), sum(r["parsed"] is None for r in records))
    io.write_jsonl(out["responses"], records)
    result = score(records, m.primary_metric, m.n_candidates)
    result.update({"dataset": w.dataset, "model": w.model, "measure": w.measure, "variant": variant,
                   "responses": out["responses"], "answers_sha256": answers_sha256(records),
                   "provenance": out["score"].replace("results/scores/", "results/provenance/", 1)})
    log.info("%s", result)
    io.write_json(out["score"], result)
clock.write(smk, smk.output.job)  # one job, one clock record: every variant's provenance record cites it
