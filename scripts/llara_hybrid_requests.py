"""Snakemake: a LLaRA-trained row's requests (hybrid prompts with their items, or the text form)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core.io import read_jsonl, write_jsonl
from lrworld.tracks.llara.hybrid.requests import build_requests

smk = snakemake  # noqa: F821
write_jsonl(smk.output.requests, build_requests(read_jsonl(smk.input.candidates), smk.params.template,
                                                smk.wildcards.ll_form, smk.params.seed, smk.wildcards.ll_dataset))
