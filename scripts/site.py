"""Snakemake entry: the results browser's page of one dataset (results/site/<dataset>.html)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821 (snakemake is injected)

from lrworld.core import io, runlog
from lrworld.site.collect import page_data, table_legend
from lrworld.site.render import dataset_page

smk = snakemake  # noqa: F821
log = runlog.setup(smk)
ds = smk.wildcards.dataset
data = page_data(ds, smk.params.domain, smk.input.table, list(smk.params.scores), smk.input.audit, smk.input.paper)
plots = {f"{ds}: models x measures": smk.input.heatmap, f"{ds}: the factors": smk.input.radar}
io.write_text(smk.output.page, dataset_page(data, table_legend(data, **smk.params.bootstrap), plots))
log.info("%s: %d cells, %d answers", smk.output.page, len(data["cells"]),
         sum(len(c["answers"]) for c in data["cells"].values()))
