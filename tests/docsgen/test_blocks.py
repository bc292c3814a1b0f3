"""The docs' generated blocks (lrworld/docsgen/blocks.py) are what the code writes now: a new module
or registry entry fails here until `python -m lrworld.docsgen.blocks` is run, and that command
alone brings the page back."""

from pathlib import Path

from lrworld.docsgen import blocks

ROOT = Path(__file__).resolve().parents[2]


def test_every_generated_block_is_current():
    assert blocks.stale() == [], f"stale generated docs blocks; run `{blocks.COMMAND}` (make docs)"


def test_the_import_graph_block_counts_what_grimp_counts():
    import grimp

    graph = grimp.build_graph("lrworld")
    imports = sum(len(graph.find_modules_directly_imported_by(m)) for m in graph.modules)
    text = blocks.current((ROOT / "docs/extending.md").read_text(), "import_graph")
    assert f" {len(graph.modules)} modules, {imports} imports." in text


def toy(root: Path) -> str:
    return (root / "n.txt").read_text()


def test_a_changed_source_makes_its_block_stale_and_the_command_rewrites_only_the_block(tmp_path, monkeypatch):
    monkeypatch.setattr(blocks, "BLOCKS", {"toy": ("docs/p.md", f"{__name__}:toy")})
    (tmp_path / "docs").mkdir()
    (tmp_path / "n.txt").write_text("3 things")
    page = tmp_path / "docs/p.md"
    page.write_text("# P\n\nBefore the block.\n")
    assert blocks.stale(tmp_path) == ["docs/p.md: toy"]
    assert blocks.write(tmp_path) == ["docs/p.md: toy"]
    first = page.read_text()
    assert first.startswith("# P\n\nBefore the block.\n\n<!-- toy:start") and "\n3 things\n" in first
    assert blocks.stale(tmp_path) == [] and blocks.write(tmp_path) == []
    page.write_text(first + "\nAfter.\n")
    (tmp_path / "n.txt").write_text("4 things")
    assert blocks.stale(tmp_path) == ["docs/p.md: toy"]
    blocks.write(tmp_path)
    assert page.read_text() == first.replace("3 things", "4 things") + "\nAfter.\n"
