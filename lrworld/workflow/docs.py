"""The docs snippets' part of the plan (rules/docs.smk): one `docs/generated/<table>.md` per results
table the config builds, from the table and its provenance (lrworld/docsgen/snippet.py)."""

from __future__ import annotations

SNIPPET = "docs/generated/{table}.md"


class DocsPlan:
    def __init__(self, plan):
        self.plan = plan
        self.on = plan.config["docs_snippets"]
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
        return [SNIPPET.format(table=t) for t in self.names()]

    def inputs(self, wc) -> dict:
        t = self.tables[wc.table]
        return {k: t[k] for k in ("md", "csv", "record", "sources") if k in t}

    def rule_of(self, table: str) -> str:
        return self.tables[table]["rule"]
