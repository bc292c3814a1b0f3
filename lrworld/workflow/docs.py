"""The docs snippets' part of the plan (rules/docs.smk): one `docs/generated/<table>.md` per results
table the config builds, from the table and its provenance (lrworld/docsgen/snippet.py).

The committed snippets are the default run's: only a run whose config is config.yaml's as it
stands (no --configfile or --config that changes it) writes them. Any other run writes its
snippets under `results/docs/generated/`, so it never rewrites a committed file."""

from __future__ import annotations

from pathlib import Path

from lrworld.config import files
from lrworld.config.assembly import fill_defaults, validate

SNIPPET = "docs/generated/{table}.md"
OTHER_RUN = "results/docs/generated/{table}.md"


def is_default_run(config: dict, root: str | Path) -> bool:
    """The run's (validated, filled) config is the one config.yaml in the checkout gives alone."""
    path = Path(root) / "config.yaml"
    if not path.exists():
        return False
    default = files.load(root, [])
    validate(default)
    return fill_defaults(default) == config


class DocsPlan:
    def __init__(self, plan):
        self.plan = plan
        self.on = plan.config["docs_snippets"]
        self.pattern = SNIPPET if is_default_run(plan.config, plan.root) else OTHER_RUN
        self.tables = self._tables()

    def _tables(self) -> dict[str, dict]:
        """Every table under results/tables/ the run builds: its rule, and its table record (LRWorld)
        or the files its rule reads (the tracks, which write no table record)."""
        p = self.plan
        out = {ds: {"rule": "table", "record": f"results/provenance/{ds}/table.json"} for ds in p.datasets}
        if p.llara.datasets:
            out["llara"] = {"rule": "llara_table", "sources": p.llara.score_files()}
        for ds in p.srbench.datasets:
            out[f"srbench_{ds}"] = {"rule": "srbench_table", "sources": p.srbench.score_files(ds)}
        return {name: {"md": f"results/tables/{name}.md", "csv": f"results/tables/{name}.csv", **t}
                for name, t in out.items()}

    def names(self) -> list[str]:
        return list(self.tables) if self.on else []

    def targets(self) -> list[str]:
        return [self.pattern.format(table=t) for t in self.names()]

    def inputs(self, wc) -> dict:
        t = self.tables[wc.table]
        return {k: t[k] for k in ("md", "csv", "record", "sources") if k in t}

    def rule_of(self, table: str) -> str:
        return self.tables[table]["rule"]
