"""Snakemake entry: scores with bootstrap CIs, paired differences, the paper-style table + bars."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.analysis import plots
from lrworld.analysis.load import model_order, responses_frame
from lrworld.analysis.output import to_html, to_latex, to_markdown
from lrworld.analysis.scores import paired_table, paper_table, score_table

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
p, ds = smk.params, smk.wildcards.dataset
frame = responses_frame(smk.input.responses)
scores = score_table(frame, int(p.n_boot), float(p.confidence), int(p.seed))
paired = paired_table(frame, list(p.models), int(p.n_boot), float(p.confidence), int(p.seed))
io.write_text(smk.output.long, scores.to_csv(index=False, float_format="%.6f", lineterminator="\n"))
io.write_text(smk.output.paired, paired.to_csv(index=False, float_format="%.6f", lineterminator="\n"))
io.write_text(smk.output.paired_html, to_html(paired, f"{ds}: paired bootstrap differences"))
num, fmt, groups = paper_table(scores, paired, p.domain, list(p.models))
conf = int(round(float(p.confidence) * 100))
note = (f"Cells: score [{conf}% percentile-bootstrap CI over questions, {p.n_boot} resamples, seed {p.seed}]; "
        f"n per cell in the CSV (`<column>_n`). * = the paired bootstrap difference to RANDOM on the same "
        f"questions has a {conf}% interval excluding 0 (all pairs: `results/analysis/{ds}/paired.csv`).")
io.write_text(smk.output.scores_csv, num.to_csv(index=False, float_format="%.4f", lineterminator="\n"))
cols, spans, i = list(fmt.columns), [], 1
for label, span in groups[1:]:
    spans.append(f"{label}: {', '.join(cols[i:i + span])}")
    i += span
io.write_text(smk.output.scores_md, to_markdown(fmt, f"{ds}: scores", note + "\n\nColumn groups (scale / factor): "
                                                + "; ".join(spans) + "."))
io.write_text(smk.output.scores_tex, to_latex(fmt, f"{ds}: scores. {note}", "tab:scores", groups))
io.write_text(smk.output.scores_html, to_html(fmt, f"{ds}: scores", note))
plots.grouped_bars(scores, model_order(list(p.models)), str(Path(smk.output.scores_png).with_suffix("")),
                   f"{ds}: zero-shot scores, {conf}% CI")
log.info("\n%s", fmt)
