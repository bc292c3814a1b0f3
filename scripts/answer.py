"""Snakemake entry: one model answers every uncached request of one track's scope (weights
loaded once), through the durable response cache."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.inference import servers, weights
from lrworld.inference.shards import ModelCache
from lrworld.inference.stage import NoLogprobs, fill_cache, replies_record, replies_sha256, summary_line
from lrworld.tracks.llara.hybrid import backend as _registers_the_trained_rows_backend  # noqa: F401

smk = snakemake  # noqa: F821
servers.exit_on_sigterm()  # a cancelled job unwinds and stops its managed server
log = runlog.setup(smk)
model = smk.wildcards.model
requests = [r for f in smk.params.requests for r in io.read_jsonl(f)]
cache = ModelCache(smk.params.cache_dir, model, writer=(smk.wildcards.track, smk.wildcards.scope))
try:  # the params carry the server command redacted; the real one comes from the config
    model_cfg = servers.real_command(model, dict(smk.params.model_cfg), smk.config)
except servers.ServerError as exc:
    log.error("%s", exc)
    cache.close()
    sys.exit(str(exc))
if model_cfg.get("batch"):
    model_cfg["batch_store"] = str(cache.path)  # open Batch API batches are remembered beside the answers
try:
    with servers.Served(model, model_cfg, gpus=smk.resources.gpu,
                        log_path=Path(smk.log[0]).with_suffix(".server.log"),
                        state_dir=Path(smk.params.cache_dir) / "servers") as served:
        planned = io.read_json(smk.input.identity)
        info = fill_cache(requests, served.backend, cache, desc=f"answer {model}",
                          check_identity=lambda ident: weights.check(planned, ident, smk.input.identity,
                                                                     f"the model {model} now"))
except (servers.ServerError, weights.IdentityMismatch, NoLogprobs) as exc:
    log.error("%s", exc)
    cache.close()
    sys.exit(str(exc))
log.info("%s", summary_line(model, f"{smk.wildcards.track}/{smk.wildcards.scope}", info))
info["prompt_files"] = {f: io.sha256_file(f) for f in smk.params.requests}
# per request file, the replies the cache now holds: a score re-runs when its file's replies change
info["replies_sha256"] = {f: replies_sha256(io.read_jsonl(f), info["identity"], cache) for f in smk.params.requests}
io.write_json(replies_record(smk.params.cache_dir, smk.wildcards.track, smk.wildcards.scope, model),
              info["replies_sha256"])
cache.close()  # its own shard goes if it holds nothing
io.write_json(smk.output.answered, info)
