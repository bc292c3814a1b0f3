"""Snakemake entry: prompt tokens per measure beside the paper's (Tables 16-17), backend-reported usage and time per
question (Table 18)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.analysis.load import responses_frame
from lrworld.analysis.output import write_table
from lrworld.analysis.tokens import beside_paper, make_counter, paper_note, prompt_tokens, usage_and_time

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
p, ds = smk.params, smk.wildcards.dataset
count = make_counter(p.tokenizer, {p.tokenizer: dict(p.tokenizer_cfg)} if p.tokenizer_cfg else {})
prompts = {(Path(f).parent.name, Path(f).stem): io.read_jsonl(f) for f in smk.input.prompts}
write_table(beside_paper(prompt_tokens(prompts, count, p.tokenizer), p.paper_dataset),
            str(Path(smk.output.prompt_tokens_csv).with_suffix("")), f"{ds}: prompt tokens ({p.tokenizer})",
            note=paper_note(ds, p.paper_dataset, p.tokenizer))
usage, time = usage_and_time(responses_frame(smk.input.responses))
write_table(usage, str(Path(smk.output.usage_csv).with_suffix("")), f"{ds}: reported token usage",
            note="tokens_in/out as the backend reported them (API usage, or the local tokenizer); 0 for random.")
write_table(time, str(Path(smk.output.latency_csv).with_suffix("")), f"{ds}: inference time per question (s)",
            note="latency_s per question as recorded when the answer was first asked (cached answers keep it).")
log.info("done")
