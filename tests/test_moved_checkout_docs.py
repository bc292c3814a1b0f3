"""A moved checkout's venv scripts name the old folder's interpreter in their shebang, so the
Makefile and the docs run Snakemake as `python -m snakemake` and the tutorial says why."""

import re

from tests.graph import ROOT


def test_no_recipe_or_doc_runs_the_venvs_snakemake_script():
    texts = {p: p.read_text() for p in [ROOT / "Makefile", ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]}
    bad = [f"{p.name}: {m.group(0)}" for p, t in texts.items()
           for m in re.finditer(r"(?<!the venv's `)(\.venv/bin/|\$\(BIN\)/)snakemake\b", t)]
    assert bad == []
    assert "$(BIN)/python -m snakemake --profile profiles/local" in texts[ROOT / "Makefile"]
    assert "use `.venv/bin/python -m snakemake`" in texts[ROOT / "docs" / "tutorial.md"]
